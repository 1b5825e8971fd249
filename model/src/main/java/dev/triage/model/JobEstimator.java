package dev.triage.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns what is known about a request on arrival into an {@link Estimate} of its cost. Chat
 * estimators read a {@link dev.triage.features.Prompt}; the speech estimator reads an audio clip.
 * Implementations are thread-safe and {@link #estimate} is pure: the same input always gives the same
 * estimate.
 *
 * @param <I> what the estimator reads
 */
public interface JobEstimator<I> extends AutoCloseable {

    /** The name used in configuration ({@code --estimator}) and in metrics labels. */
    String name();

    Estimate estimate(I input);

    /**
     * Estimates several inputs at once. Estimators whose cost is dominated by a fixed per-call
     * overhead (a transformer forward pass) override this to score the batch in one call.
     */
    default List<Estimate> estimateAll(List<I> inputs) {
        List<Estimate> estimates = new ArrayList<>(inputs.size());
        for (I input : inputs) {
            estimates.add(estimate(input));
        }
        return estimates;
    }

    /**
     * True when one call costs milliseconds rather than microseconds. Callers must then run it off
     * the network threads, batching requests that arrive together.
     */
    default boolean expensive() {
        return false;
    }

    /** Frees native resources (ONNX Runtime sessions). */
    @Override
    default void close() {}
}
