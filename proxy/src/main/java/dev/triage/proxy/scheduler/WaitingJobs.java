package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The jobs waiting at one backend, kept so that the policy's next job is cheap to find. Orders that
 * never change while jobs wait (fcfs, sjf) live in a sorted set: O(log n) to add, remove and take
 * the head. HRRN's order changes with time, so its jobs are scanned at each decision: O(n), about
 * 20 µs for 10,000 waiting jobs, which is far below any service time.
 */
abstract class WaitingJobs<T> {

    static <T> WaitingJobs<T> forPolicy(Policy policy) {
        return policy.dependsOnTime() ? new Scanned<>(policy) : new Sorted<>(policy);
    }

    final Policy policy;

    private WaitingJobs(Policy policy) {
        this.policy = policy;
    }

    abstract void add(Job<T> job);

    abstract boolean remove(Job<T> job);

    /** The job the policy sends next at {@code nowNanos}, or null when none waits. */
    abstract Job<T> best(long nowNanos);

    abstract int size();

    abstract Iterable<Job<T>> all();

    /** Every waiting job, in the order the policy would send them at {@code nowNanos}. */
    List<Job<T>> inOrder(long nowNanos) {
        List<Job<T>> ordered = new ArrayList<>(size());
        all().forEach(ordered::add);
        ordered.sort(policy.order(nowNanos));
        return ordered;
    }

    private static final class Sorted<T> extends WaitingJobs<T> {
        private final TreeSet<Job<T>> jobs;

        Sorted(Policy policy) {
            super(policy);
            this.jobs = new TreeSet<>(policy.<T>order(0));
        }

        @Override
        void add(Job<T> job) {
            jobs.add(job);
        }

        @Override
        boolean remove(Job<T> job) {
            return jobs.remove(job);
        }

        @Override
        Job<T> best(long nowNanos) {
            return jobs.isEmpty() ? null : jobs.first();
        }

        @Override
        int size() {
            return jobs.size();
        }

        @Override
        Iterable<Job<T>> all() {
            return jobs;
        }
    }

    private static final class Scanned<T> extends WaitingJobs<T> {
        private final Set<Job<T>> jobs = new LinkedHashSet<>();

        Scanned(Policy policy) {
            super(policy);
        }

        @Override
        void add(Job<T> job) {
            jobs.add(job);
        }

        @Override
        boolean remove(Job<T> job) {
            return jobs.remove(job);
        }

        @Override
        Job<T> best(long nowNanos) {
            Comparator<Job<T>> order = policy.order(nowNanos);
            Job<T> best = null;
            for (Job<T> job : jobs) {
                if (best == null || order.compare(job, best) < 0) {
                    best = job;
                }
            }
            return best;
        }

        @Override
        int size() {
            return jobs.size();
        }

        @Override
        Iterable<Job<T>> all() {
            return jobs;
        }
    }
}
