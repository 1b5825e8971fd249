package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;

/**
 * A prompt's estimate, and, when the fallback made it because the configured estimator was behind,
 * the configured estimator's own to ask for: a request still waiting when it comes is placed by it.
 *
 * @param estimate the estimate to size the request by now
 * @param better the configured estimator's estimate, made once it has caught up if asked for
 */
public record Estimated(Estimate estimate, BetterEstimate better) {

    /** An estimate that is final. */
    public static Estimated of(Estimate estimate) {
        return new Estimated(estimate, BetterEstimate.NONE);
    }
}
