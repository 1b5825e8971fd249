package dev.triage.bench.replay;

import dev.triage.bench.workload.WorkloadEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The answer length recorded for each prompt of a workload, and the transcript length for each of its
 * audio files (by the SHA-256 of the file's bytes): what the replay backend generates when it sees
 * that prompt or that file again. A prompt or file listed twice must have the same length both times.
 */
public final class AnswerBook {

    private final Map<String, Integer> tokensByPrompt;
    private final Map<String, Integer> tokensByAudio;

    private AnswerBook(Map<String, Integer> tokensByPrompt, Map<String, Integer> tokensByAudio) {
        this.tokensByPrompt = Map.copyOf(tokensByPrompt);
        this.tokensByAudio = Map.copyOf(tokensByAudio);
    }

    public static AnswerBook of(List<WorkloadEntry> entries) {
        Map<String, Integer> prompts = new HashMap<>();
        Map<String, Integer> audio = new HashMap<>();
        for (WorkloadEntry entry : entries) {
            if (entry.audio().isPresent()) {
                record(audio, entry.audio().get().sha256(), entry.answerTokens(), "audio file", entry.audio().get().path().toString());
            } else {
                record(prompts, entry.prompt(), entry.answerTokens(), "prompt", "\"" + abbreviate(entry.prompt()) + "\"");
            }
        }
        return new AnswerBook(prompts, audio);
    }

    private static void record(Map<String, Integer> tokensByKey, String key, int tokens, String kind, String shown) {
        Integer previous = tokensByKey.putIfAbsent(key, tokens);
        if (previous != null && previous != tokens) {
            throw new IllegalArgumentException(kind + " " + shown + " has answers of " + previous + " and " + tokens
                    + " tokens (expected: one length per " + kind + ")");
        }
    }

    public static AnswerBook empty() {
        return new AnswerBook(Map.of(), Map.of());
    }

    public OptionalInt answerTokens(String prompt) {
        return lookUp(tokensByPrompt, prompt);
    }

    /** The transcript length of the workload's audio file with this SHA-256 (lower-case hex). */
    public OptionalInt transcriptTokens(String sha256) {
        return lookUp(tokensByAudio, sha256);
    }

    /** Prompts known. */
    public int size() {
        return tokensByPrompt.size();
    }

    /** Audio files known. */
    public int audioFiles() {
        return tokensByAudio.size();
    }

    private static OptionalInt lookUp(Map<String, Integer> tokensByKey, String key) {
        Integer tokens = tokensByKey.get(key);
        return tokens == null ? OptionalInt.empty() : OptionalInt.of(tokens);
    }

    private static String abbreviate(String prompt) {
        return prompt.length() <= 60 ? prompt : prompt.substring(0, 57) + "...";
    }
}
