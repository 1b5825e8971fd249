package dev.triage.model.training;

import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.SharedData;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.ranker.RankerEstimator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The flags every training and evaluation command shares. */
final class TrainingFlags {

    private TrainingFlags() {}

    /**
     * The estimator a command is for: {@code --estimator}, {@code classifier} when absent.
     *
     * @throws IllegalArgumentException when it names no estimator with a trained model
     */
    static String estimator(Flags flags) {
        String estimator = flags.string("estimator", ClassifierEstimator.NAME);
        if (!List.of(ClassifierEstimator.NAME, RankerEstimator.NAME, LexicalEstimator.NAME).contains(estimator)) {
            throw new IllegalArgumentException("--estimator: " + estimator + " (expected: " + ClassifierEstimator.NAME
                    + ", " + RankerEstimator.NAME + " or " + LexicalEstimator.NAME + ")");
        }
        return estimator;
    }

    /** {@code --feedback FILE}: a deployment's feedback log whose answers join the training data, when given. */
    static Optional<Path> feedback(Flags flags) {
        return flags.optional("feedback").map(Path::of);
    }

    /**
     * The prompt/answer folder under {@code --data} (the shared data directory), or under
     * {@link SharedData#locate()} when the flag is absent.
     */
    static Path promptResponse(Flags flags) {
        Path dataDirectory = flags.optional("data").map(Path::of).orElseGet(() -> SharedData.locate().orElseThrow(
                () -> new IllegalArgumentException("no shared data: pass --data DIR or set " + SharedData.ENVIRONMENT_VARIABLE
                        + " (expected: ../shared/data beside the repository)")));
        Path promptResponse = dataDirectory.resolve("prompt_response");
        if (!Files.isDirectory(promptResponse)) {
            throw new IllegalArgumentException("--data: " + dataDirectory + " (expected: a directory with prompt_response/)");
        }
        return promptResponse;
    }
}
