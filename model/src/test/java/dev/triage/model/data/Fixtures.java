package dev.triage.model.data;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** The synthetic prompt/answer folder of the test resources, in the shared data's formats. */
final class Fixtures {

    private Fixtures() {}

    static Path promptResponse() {
        try {
            return Path.of(Fixtures.class.getResource("/prompt_response").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
