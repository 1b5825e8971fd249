package dev.triage.proxy.scheduler.ewsjf;

import dev.triage.proxy.scheduler.Job;
import java.util.Comparator;
import java.util.TreeSet;

/**
 * One of EWSJF's queues: the jobs whose size falls in its range, oldest first within the lowest
 * client priority (vLLM's convention: lower is sooner).
 */
final class SizeQueue<T> {

    private static final Comparator<Job<?>> PRIORITY_THEN_ARRIVAL =
            Comparator.<Job<?>>comparingInt(Job::priority).thenComparingLong(Job::sequence);

    final SizeRange range;
    private final TreeSet<Job<T>> jobs = new TreeSet<>(PRIORITY_THEN_ARRIVAL);

    SizeQueue(SizeRange range) {
        this.range = range;
    }

    void add(Job<T> job) {
        jobs.add(job);
    }

    void remove(Job<T> job) {
        jobs.remove(job);
    }

    boolean isEmpty() {
        return jobs.isEmpty();
    }

    int size() {
        return jobs.size();
    }

    /** The job this queue sends next: its oldest of the lowest priority. */
    Job<T> head() {
        return jobs.first();
    }

    Iterable<Job<T>> jobs() {
        return jobs;
    }
}
