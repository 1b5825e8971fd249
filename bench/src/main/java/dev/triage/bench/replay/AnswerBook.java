package dev.triage.bench.replay;

import dev.triage.bench.workload.WorkloadEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The answer length recorded for each prompt of a workload: what the replay backend generates when
 * it sees that prompt again. A prompt listed twice must have the same length both times.
 */
public final class AnswerBook {

    private final Map<String, Integer> tokensByPrompt;

    private AnswerBook(Map<String, Integer> tokensByPrompt) {
        this.tokensByPrompt = Map.copyOf(tokensByPrompt);
    }

    public static AnswerBook of(List<WorkloadEntry> entries) {
        Map<String, Integer> tokens = new HashMap<>();
        for (WorkloadEntry entry : entries) {
            Integer previous = tokens.putIfAbsent(entry.prompt(), entry.answerTokens());
            if (previous != null && previous != entry.answerTokens()) {
                throw new IllegalArgumentException("prompt \"" + abbreviate(entry.prompt()) + "\" has answers of " + previous
                        + " and " + entry.answerTokens() + " tokens (expected: one length per prompt)");
            }
        }
        return new AnswerBook(tokens);
    }

    public static AnswerBook empty() {
        return new AnswerBook(Map.of());
    }

    public OptionalInt answerTokens(String prompt) {
        Integer tokens = tokensByPrompt.get(prompt);
        return tokens == null ? OptionalInt.empty() : OptionalInt.of(tokens);
    }

    public int size() {
        return tokensByPrompt.size();
    }

    private static String abbreviate(String prompt) {
        return prompt.length() <= 60 ? prompt : prompt.substring(0, 57) + "...";
    }
}
