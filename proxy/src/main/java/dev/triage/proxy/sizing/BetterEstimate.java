package dev.triage.proxy.sizing;

import dev.triage.model.Estimate;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * The configured estimator's own estimate of a prompt the fallback sized because it was behind, made
 * only if asked: only a request that waits for a slot can go by it, and scoring the prompt of one
 * already sent would take the estimator's time from those that wait.
 */
@FunctionalInterface
public interface BetterEstimate {

    /** None to ask for: the estimate is already the configured estimator's, or it will not make one. */
    BetterEstimate NONE = Optional::empty;

    /** Asks for it: the estimate to come, or empty when the estimator has too many to make already. */
    Optional<CompletableFuture<Estimate>> ask();

    /** The same estimate, passed through {@code then} once made (a request's own cap, say). */
    default BetterEstimate then(UnaryOperator<Estimate> then) {
        return () -> ask().map(estimate -> estimate.thenApply(then));
    }
}
