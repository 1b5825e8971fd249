package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A scheduled request once read: what it is expected to cost and the client's priority.
 *
 * @param estimate expected output tokens, already capped by the request's own limit
 * @param byFallback true when the fallback estimator made {@code estimate} ({@link Estimated#byFallback})
 * @param priority lower is sooner; 0 when the request names none
 * @param promptTokens the prompt the backend prefills, in tokens; 0 when there is none (audio)
 * @param outputCap the request's own limit on output tokens, when it sets one
 * @param fingerprint the prompt's fingerprint, by which its repeats are known; empty when it has no text (audio)
 * @param prompt what the estimator read, for the feedback log; empty for audio
 * @param better the configured estimator's own estimate, already capped, to ask for when a fallback made
 *     {@code estimate} ({@link Estimated#better}); {@link BetterEstimate#NONE} otherwise
 * @param measured whether the backend's token count will measure its answer ({@code ChatBody#measuresOneAnswer}):
 *     one answer, under caps that agree
 */
public record SizedJob(Estimate estimate, boolean byFallback, int priority, int promptTokens, OptionalInt outputCap, OptionalLong fingerprint,
        Optional<Prompt> prompt, BetterEstimate better, boolean measured) {

    /** A job that sets no limit on its output and has no prompt text: an audio upload. */
    public SizedJob(Estimate estimate, int priority, int promptTokens) {
        this(estimate, false, priority, promptTokens, OptionalInt.empty(), OptionalLong.empty(), Optional.empty(), BetterEstimate.NONE, true);
    }

    /** The job as the configured estimator's better estimate sizes it, which is final. */
    public SizedJob withEstimate(Estimate better) {
        return new SizedJob(better, false, priority, promptTokens, outputCap, fingerprint, prompt, BetterEstimate.NONE, measured);
    }
}