package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Clairvoyant's starvation timeout τ: a job that has waited longer than τ goes before every other
 * job, whatever the policy and the client priority say, and among several such jobs the oldest goes
 * first. It bounds how long any job waits to τ plus the time until a slot frees. With τ off
 * ({@code timeoutNanos == 0}) it never promotes.
 *
 * <p>Jobs are kept in arrival order, so the oldest waiting job is found in O(1); the scheduler asks
 * it for the oldest job's queue-wait deadline too.
 */
final class StarvationGuard<T> {

    private final long timeoutNanos;
    private final LinkedHashSet<Job<T>> byArrival = new LinkedHashSet<>();

    StarvationGuard(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    void add(Job<T> job) {
        byArrival.add(job);
    }

    void remove(Job<T> job) {
        byArrival.remove(job);
    }

    /** The job that has waited longest, or null when none waits. */
    Job<T> oldest() {
        return byArrival.isEmpty() ? null : byArrival.iterator().next();
    }

    /** The oldest job that has waited longer than τ at {@code nowNanos}, or null. */
    Job<T> starved(long nowNanos) {
        Job<T> oldest = oldest();
        return oldest != null && isStarved(oldest, nowNanos) ? oldest : null;
    }

    /** The jobs that have waited longer than τ at {@code nowNanos}, oldest first. */
    List<Job<T>> allStarved(long nowNanos) {
        List<Job<T>> starved = new ArrayList<>();
        for (Iterator<Job<T>> it = byArrival.iterator(); it.hasNext(); ) {
            Job<T> job = it.next();
            if (!isStarved(job, nowNanos)) {
                break;
            }
            starved.add(job);
        }
        return starved;
    }

    /** True when τ is on and {@code job} has waited longer than τ at {@code nowNanos}. */
    boolean isStarved(Job<T> job, long nowNanos) {
        return timeoutNanos > 0 && job.waitedNanos(nowNanos) > timeoutNanos;
    }
}
