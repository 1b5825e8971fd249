package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A prompt's estimate, and, when the fallback made it because the configured estimator was behind,
 * the configured estimator's own, to come: a request still waiting when it does is placed by it.
 *
 * @param estimate the estimate to size the request by now
 * @param better the configured estimator's estimate, made once it has caught up; empty when
 *     {@code estimate} is already its, or when it will not make one
 */
public record Estimated(Estimate estimate, Optional<CompletableFuture<Estimate>> better) {

    /** An estimate that is final. */
    public static Estimated of(Estimate estimate) {
        return new Estimated(estimate, Optional.empty());
    }
}
