package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;

/**
 * Clairvoyant's starvation timeout τ: a job that has waited longer than τ goes before every other
 * job, whatever the policy and the client priority say, and among several such jobs the oldest goes
 * first. It bounds how long any job waits to τ plus the time until a slot frees. With τ off
 * ({@code timeoutNanos == 0}) it never promotes.
 *
 * <p>Jobs are kept in arrival order (a paused job comes back in its place, not at the end), so the
 * oldest waiting job is found in O(log n).
 */
final class StarvationGuard<T> {

    private final long timeoutNanos;
    private final TreeSet<Job<T>> byArrival = new TreeSet<>(
            Comparator.<Job<T>>comparingLong(Job::arrivalNanos).thenComparingLong(Job::sequence));

    StarvationGuard(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    void add(Job<T> job) {
        byArrival.add(job);
    }

    void remove(Job<T> job) {
        byArrival.remove(job);
    }

    /** The oldest job that has waited longer than τ at {@code nowNanos}, or null. */
    Job<T> starved(long nowNanos) {
        if (timeoutNanos == 0 || byArrival.isEmpty()) {
            return null;
        }
        Job<T> oldest = byArrival.first();
        return isStarved(oldest, nowNanos) ? oldest : null;
    }

    /** The jobs that have waited longer than τ at {@code nowNanos}, oldest first. */
    List<Job<T>> allStarved(long nowNanos) {
        List<Job<T>> starved = new ArrayList<>();
        if (timeoutNanos == 0) {
            return starved;
        }
        for (Iterator<Job<T>> it = byArrival.iterator(); it.hasNext(); ) {
            Job<T> job = it.next();
            if (!isStarved(job, nowNanos)) {
                break;
            }
            starved.add(job);
        }
        return starved;
    }

    /** True when {@code job} has been in the system longer than τ: it is then never paused. */
    boolean isStarved(Job<T> job, long nowNanos) {
        return timeoutNanos > 0 && job.waitedNanos(nowNanos) > timeoutNanos;
    }
}
