package dev.triage.model;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An estimator whose model can be replaced while it serves. Every call uses exactly one model from
 * start to end — the one current when the call began — so no estimate mixes two models, and a model
 * that has been swapped out is closed only once the last call using it has returned.
 *
 * <pre>{@code
 * SwappableEstimator<Prompt> estimator = new SwappableEstimator<>(ClassifierEstimator.load(path));
 * ...
 * estimator.swap(ClassifierEstimator.load(path));   // from any thread
 * }</pre>
 *
 * @param <I> what the estimator reads
 */
public final class SwappableEstimator<I> implements JobEstimator<I> {

    private volatile Lease<I> current;
    /** Set by {@link #close}; guarded by {@code this}, as swaps are. */
    private boolean closed;

    public SwappableEstimator(JobEstimator<I> initial) {
        this.current = new Lease<>(initial);
    }

    /** The name of the model serving now. */
    @Override
    public String name() {
        return current.estimator.name();
    }

    @Override
    public Estimate estimate(I input) {
        return withCurrent(estimator -> estimator.estimate(input));
    }

    @Override
    public List<Estimate> estimateAll(List<I> inputs) {
        return withCurrent(estimator -> estimator.estimateAll(inputs));
    }

    @Override
    public boolean expensive() {
        return current.estimator.expensive();
    }

    /**
     * Makes {@code next} the model of every later call; the previous one closes when its last call ends.
     *
     * @throws IllegalStateException after {@link #close}, having closed {@code next}
     */
    public synchronized void swap(JobEstimator<I> next) {
        if (closed) {
            next.close();
            throw new IllegalStateException("a model swapped into a closed estimator");
        }
        Lease<I> previous = current;
        current = new Lease<>(next);
        previous.release();
    }

    /** Closes the model once the calls using it have returned; a later call fails. Closing again does nothing. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            current.release();
        }
    }

    /** @throws IllegalStateException once the estimator is closed */
    private <R> R withCurrent(Function<JobEstimator<I>, R> call) {
        while (true) {
            Lease<I> lease = current;
            if (lease.acquire()) {
                try {
                    return call.apply(lease.estimator);
                } finally {
                    lease.release();
                }
            }
            // A lease retires when a swap has put another in its place, or when the estimator closed.
            if (lease == current) {
                throw new IllegalStateException("the estimator is closed");
            }
        }
    }

    /** A model and how many hold it: the swappable itself while it is current, plus each call in progress. */
    private static final class Lease<I> {
        private final JobEstimator<I> estimator;
        private final AtomicInteger holders = new AtomicInteger(1);

        Lease(JobEstimator<I> estimator) {
            this.estimator = estimator;
        }

        boolean acquire() {
            while (true) {
                int held = holders.get();
                if (held == 0) {
                    return false;
                }
                if (holders.compareAndSet(held, held + 1)) {
                    return true;
                }
            }
        }

        void release() {
            if (holders.decrementAndGet() == 0) {
                estimator.close();
            }
        }
    }
}
