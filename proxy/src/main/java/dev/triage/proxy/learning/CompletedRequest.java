package dev.triage.proxy.learning;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a completed request teaches its backend's learner: what it was estimated at, what it turned
 * out to be, and what it cost. Only requests that ended with a whole answer become one: a timeout,
 * an error or a client that left tells neither the answer's length nor its full cost.
 *
 * @param frozenTokens the estimator's own estimate, before any learned calibration (and capped by the
 *     request's limit, as it was scheduled)
 * @param outputCap the request's own output limit, when it set one
 * @param promptTokens the prompt's length in tokens (approximate: characters / 4); 0 for audio
 * @param actualTokens the tokens the backend wrote
 * @param running requests running on the backend when this one started, itself included
 * @param serviceSeconds the time it held its backend's slot: from its dispatch to the backend's last byte, over every run
 * @param fingerprint the prompt's {@link PromptFingerprint}, when it has one
 * @param byFallback true when the fallback estimator made {@code frozenTokens}: the answer then teaches
 *     no length to the configured estimator's calibration, only the service time and the repeats
 * @param features the prompt's {@link dev.triage.features.RequestFeatures}, when the request has a prompt: they
 *     teach the ranking adaptation (taken when the request ends, so that no prompt's text waits for the learner)
 */
public record CompletedRequest(double frozenTokens, OptionalInt outputCap, double promptTokens, long actualTokens, int running,
        double serviceSeconds, OptionalLong fingerprint, boolean byFallback, Optional<float[]> features) {

    /** A request the configured estimator sized. */
    public CompletedRequest(double frozenTokens, OptionalInt outputCap, double promptTokens, long actualTokens, int running,
            double serviceSeconds, OptionalLong fingerprint) {
        this(frozenTokens, outputCap, promptTokens, actualTokens, running, serviceSeconds, fingerprint, false, Optional.empty());
    }

    /** A request whose prompt has no fingerprint (audio, or a replay that leaves repeats out). */
    public CompletedRequest(double frozenTokens, OptionalInt outputCap, double promptTokens, long actualTokens, int running,
            double serviceSeconds) {
        this(frozenTokens, outputCap, promptTokens, actualTokens, running, serviceSeconds, OptionalLong.empty());
    }

    /** True when the answer ended of itself, short of the request's own limit: its length is the whole answer's. */
    boolean answerWhole() {
        return outputCap.isEmpty() || actualTokens < outputCap.getAsInt();
    }

    /**
     * True when the answer's length says something about the configured estimator's estimate: it made
     * the estimate, and neither the estimate nor the answer stopped at the request's own limit (an
     * answer cut there is censored, an estimate held there does not show the estimator's score).
     */
    boolean teachesLength() {
        return !byFallback && answerWhole() && (outputCap.isEmpty() || frozenTokens < outputCap.getAsInt());
    }
}
