package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * A scheduled request once read: what it is expected to cost and the client's priority.
 *
 * @param estimate expected output tokens, already capped by the request's own limit
 * @param priority lower is sooner; 0 when the request names none
 * @param promptTokens the prompt the backend prefills, in tokens; 0 when there is none (audio)
 * @param outputCap the request's own limit on output tokens, when it sets one
 * @param better a better estimate to come, already capped, when a fallback made {@code estimate}
 *     ({@link Estimated#better}); empty otherwise
 */
public record SizedJob(Estimate estimate, int priority, int promptTokens, OptionalInt outputCap,
        Optional<CompletableFuture<Estimate>> better) {

    /** A job that sets no limit on its output: an audio upload. */
    public SizedJob(Estimate estimate, int priority, int promptTokens) {
        this(estimate, priority, promptTokens, OptionalInt.empty(), Optional.empty());
    }

    /** The job as the better estimate sizes it, which is final. */
    public SizedJob withEstimate(Estimate better) {
        return new SizedJob(better, priority, promptTokens, outputCap, Optional.empty());
    }
}