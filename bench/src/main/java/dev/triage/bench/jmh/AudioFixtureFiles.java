package dev.triage.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The audio fixtures of {@code features/src/test/resources/audio}, read by the audio benchmarks. Run
 * them from the repository root, or point {@code -Dtriage.audio.fixtures=DIR} at the folder.
 */
final class AudioFixtureFiles {

    private AudioFixtureFiles() {}

    static byte[] read(String name) throws IOException {
        return Files.readAllBytes(Path.of(System.getProperty("triage.audio.fixtures", "features/src/test/resources/audio"), name));
    }
}
