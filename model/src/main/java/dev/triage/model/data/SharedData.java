package dev.triage.model.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the project's shared data lives: {@code ../shared/data} beside the repository root, or the
 * directory named by the environment variable {@value #ENVIRONMENT_VARIABLE}. Scripts and tests use
 * it so that nobody hard-codes a path; tests that need the data skip when it is absent.
 */
public final class SharedData {

    public static final String ENVIRONMENT_VARIABLE = "TRIAGE_DATA";

    private SharedData() {}

    /** The data directory if it exists, found from the environment or from the working directory up. */
    public static Optional<Path> locate() {
        String configured = System.getenv(ENVIRONMENT_VARIABLE);
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            return Files.isDirectory(path) ? Optional.of(path) : Optional.empty();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (isRepositoryRoot(dir)) {
                Path data = dir.resolveSibling("shared").resolve("data");
                return Files.isDirectory(data) ? Optional.of(data.normalize()) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The prompt/answer sources under the data directory, if present. */
    public static Optional<Path> promptResponse() {
        return locate().map(data -> data.resolve("prompt_response")).filter(Files::isDirectory);
    }

    /** The prompt/answer sources, for a command that cannot run without them. */
    public static Path requirePromptResponse() throws IOException {
        return promptResponse().orElseThrow(() -> new IOException(
                "no shared data at ../shared/data (or $" + ENVIRONMENT_VARIABLE + ")"));
    }

    private static boolean isRepositoryRoot(Path dir) {
        return Files.isRegularFile(dir.resolve("pom.xml"))
                && Files.isDirectory(dir.resolve("features"))
                && Files.isDirectory(dir.resolve("model"));
    }
}
