package dev.triage.proxy.testing;

import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;

/**
 * An estimator whose every estimate fails as {@code failure} does (a crash, memory running out).
 *
 * @param failure throws what the estimate fails with
 */
public record FailingEstimator<I>(String name, Runnable failure) implements JobEstimator<I> {

    @Override
    public Estimate estimate(I input) {
        failure.run();
        throw new AssertionError(name + ": its failure did not throw");
    }
}
