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
 * oldest waiting job is found in O(log n); the scheduler asks it for the queue-wait deadlines too.
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

    /** The job that has waited longest, or null when none waits. */
    Job<T> oldest() {
        return byArrival.isEmpty() ? null : byArrival.first();
    }

    /** The waiting jobs, oldest first. */
    Iterable<Job<T>> byArrival() {
        return byArrival;
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

    /**
     * True when τ is on and {@code job} has waited longer than τ at {@code nowNanos}: since its
     * arrival, so a paused job's runs count, and such a job is never paused again.
     */
    boolean isStarved(Job<T> job, long nowNanos) {
        return timeoutNanos > 0 && job.waitedNanos(nowNanos) > timeoutNanos;
    }
}
