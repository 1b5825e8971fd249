package dev.triage.model.training;

import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.data.SharedData;
import dev.triage.model.ranker.RankerEstimator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} arguments of the training and evaluation commands, checked against the
 * names a command accepts; a bad argument is an {@link IllegalArgumentException} whose message is
 * the one line the command prints.
 */
final class CommandArguments {

    private final Map<String, String> values = new HashMap<>();

    CommandArguments(String[] args, Set<String> accepted) {
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!name.startsWith("--") || !accepted.contains(name.substring(2))) {
                throw new IllegalArgumentException("unknown argument: " + name + " (expected one of --" + String.join(", --", accepted.stream().sorted().toList()) + ")");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + ": missing value");
            }
            values.put(name.substring(2), args[++i]);
        }
    }

    /**
     * The estimator a command is for: the value of {@code --estimator} in {@code args},
     * {@code classifier} when absent.
     *
     * @throws IllegalArgumentException when it names no estimator with a trained model
     */
    static String estimator(String[] args) {
        String estimator = ClassifierEstimator.NAME;
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--estimator")) {
                estimator = args[i + 1];
            }
        }
        if (!estimator.equals(ClassifierEstimator.NAME) && !estimator.equals(RankerEstimator.NAME)) {
            throw new IllegalArgumentException("--estimator: " + estimator + " (expected: " + ClassifierEstimator.NAME
                    + " or " + RankerEstimator.NAME + ")");
        }
        return estimator;
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    int getInt(String name, int fallback) {
        String value = values.get(name);
        try {
            return value == null ? fallback : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": " + value + " (expected: an integer)");
        }
    }

    double getDouble(String name, double fallback) {
        String value = values.get(name);
        try {
            return value == null ? fallback : Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": " + value + " (expected: a number)");
        }
    }

    /**
     * The prompt/answer folder under {@code --data} (the shared data directory), or under
     * {@link SharedData#locate()} when the argument is absent.
     */
    Path promptResponse() {
        String data = values.get("data");
        Path dataDirectory = data != null ? Path.of(data) : SharedData.locate().orElseThrow(() -> new IllegalArgumentException(
                "no shared data: pass --data DIR or set " + SharedData.ENVIRONMENT_VARIABLE + " (expected: ../shared/data beside the repository)"));
        Path promptResponse = dataDirectory.resolve("prompt_response");
        if (!Files.isDirectory(promptResponse)) {
            throw new IllegalArgumentException("--data: " + dataDirectory + " (expected: a directory with prompt_response/)");
        }
        return promptResponse;
    }
}
