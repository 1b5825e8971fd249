package dev.triage.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared data directory for tests: {@code $TRIAGE_DATA}, else {@code ../shared/data} from the
 * repository root. Tests that need a file skip, saying which, when it is absent.
 */
public final class SharedData {

    private SharedData() {}

    public static Path require(String relative) {
        String override = System.getenv("TRIAGE_DATA");
        // Tests run in the module directory; the repository root is its parent.
        Path root = override != null ? Path.of(override) : Path.of("").toAbsolutePath().getParent().resolve("../shared/data").normalize();
        Path file = root.resolve(relative);
        assumeTrue(Files.isReadable(file), "shared data not found: " + file + " (set TRIAGE_DATA to the data directory)");
        return file;
    }
}
