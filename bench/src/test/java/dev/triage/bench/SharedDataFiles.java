package dev.triage.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.triage.model.data.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the shared data directory for tests, which skip, saying which file, when it is absent. */
public final class SharedDataFiles {

    private SharedDataFiles() {}

    public static Path require(String relative) {
        Path data = SharedData.locate().orElse(null);
        assumeTrue(data != null, "shared data not found (../shared/data or $" + SharedData.ENVIRONMENT_VARIABLE + ")");
        Path file = data.resolve(relative);
        assumeTrue(Files.isReadable(file), "shared data file not found: " + file);
        return file;
    }
}
