package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;
import java.util.OptionalInt;

/**
 * A scheduled request once read: what it is expected to cost and the client's priority.
 *
 * @param estimate expected output tokens, already capped by the request's own limit
 * @param priority lower is sooner; 0 when the request names none
 * @param promptTokens the prompt's length in tokens, approximately (characters / 4); 0 for audio
 * @param outputCap the request's own limit on output tokens, when it sets one
 */
public record SizedJob(Estimate estimate, int priority, double promptTokens, OptionalInt outputCap) {

    /** Characters per token, the usual rough rule for English text. */
    public static final double CHARS_PER_TOKEN = 4;

    /** A job with no prompt to speak of and no output limit: an audio upload. */
    public SizedJob(Estimate estimate, int priority) {
        this(estimate, priority, 0, OptionalInt.empty());
    }
}
