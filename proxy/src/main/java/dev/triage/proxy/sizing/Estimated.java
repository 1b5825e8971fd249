package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;

/**
 * A prompt's estimate, whether the fallback made it, and, when the fallback made it because the
 * configured estimator was behind, the configured estimator's own to ask for: a request still waiting
 * when it comes is placed by it.
 *
 * @param estimate the estimate to size the request by now
 * @param byFallback true when the fallback made it, not the configured estimator: the configured
 *     estimator's learned calibration must not learn from it
 * @param better the configured estimator's estimate, made once it has caught up if asked for
 */
public record Estimated(Estimate estimate, boolean byFallback, BetterEstimate better) {

    /** The configured estimator's estimate. */
    public static Estimated of(Estimate estimate) {
        return new Estimated(estimate, false, BetterEstimate.NONE);
    }

    /** The fallback's estimate, with nothing better to ask for. */
    public static Estimated ofFallback(Estimate estimate) {
        return new Estimated(estimate, true, BetterEstimate.NONE);
    }
}
