package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * The jobs waiting at one backend, kept so that the policy's next job is cheap to find: what a
 * {@link Policy} is to the {@link Scheduler}. Orders that never change while jobs wait (fcfs, sjf)
 * live in a sorted set: O(log n) to add, remove and take the head. HRRN's order changes with time,
 * so its jobs are scanned at each decision: O(n) over flat arrays, tens of microseconds for 10,000
 * waiting jobs, far below any service time. A policy that keeps state of its own (ewsjf's queues)
 * extends this class and is handed to the scheduler's constructor.
 *
 * <p>Called only by the thread that owns the scheduler.
 */
public abstract class WaitingJobs<T> {

    /** The waiting jobs of a policy that is one order over jobs (fcfs, sjf, hrrn). */
    static <T> WaitingJobs<T> forPolicy(Policy policy) {
        if (!policy.isOrder()) {
            throw new IllegalArgumentException("policy " + policy.label() + " keeps queues of its own (expected: fcfs, sjf or hrrn)");
        }
        return policy.dependsOnTime() ? new Scanned<>(policy) : new Sorted<>(policy);
    }

    final Policy policy;

    protected WaitingJobs(Policy policy) {
        this.policy = policy;
    }

    public abstract void add(Job<T> job);

    public abstract boolean remove(Job<T> job);

    /**
     * Adds back a job {@link #remove removed} to change its cost: placed by its new cost, its arrival
     * order kept, and not counted as a new arrival by policies that learn from arrivals.
     */
    public void addAgain(Job<T> job) {
        add(job);
    }

    /**
     * The job the policy sends next at {@code nowNanos}, or null when none waits.
     *
     * @param freeSlots the backend's free slots, at least 1: when several are free at once, the jobs
     *     taken one after another fill them together
     */
    public abstract Job<T> best(long nowNanos, int freeSlots);

    public abstract int size();

    public abstract Iterable<Job<T>> all();

    /** Every waiting job, in the order the policy would send them at {@code nowNanos}. */
    public List<Job<T>> inOrder(long nowNanos) {
        List<Job<T>> ordered = new ArrayList<>(size());
        all().forEach(ordered::add);
        ordered.sort(policy.order(nowNanos));
        return ordered;
    }

    /**
     * True when no job may take a slot without the scheduler: the policy must see every job
     * ({@link Policy#seesEveryJob}), or these waiting jobs charge every job to someone.
     */
    public boolean seesEveryJob() {
        return policy.seesEveryJob();
    }

    /** Hears that {@code job}, just removed, took a slot at {@code nowNanos}; a policy that charges for it overrides this. */
    public void dispatched(Job<T> job, long nowNanos) {}

    /**
     * True when {@link #best} and {@link #inOrder} apply the starvation timeout themselves, so that the
     * scheduler does not send a job ahead of them for its age.
     */
    public boolean ordersStarved() {
        return false;
    }

    /**
     * Where {@link #ordersStarved}: whether {@code job}, just chosen by {@link #best}, was sent ahead of
     * the policy's order by the starvation timeout, for the scheduler to count.
     */
    public boolean promotedByAge(Job<T> job, long nowNanos, int freeSlots) {
        return false;
    }

    /** Hears that a dispatched job ended and freed its slot at {@code nowNanos}; a policy that learns from it overrides this. */
    public void released(Dispatch<T> dispatch, long nowNanos) {}

    private static final class Sorted<T> extends WaitingJobs<T> {
        private final TreeSet<Job<T>> jobs;

        Sorted(Policy policy) {
            super(policy);
            this.jobs = new TreeSet<>(policy.<T>order(0));
        }

        @Override
        public void add(Job<T> job) {
            jobs.add(job);
        }

        @Override
        public boolean remove(Job<T> job) {
            return jobs.remove(job);
        }

        @Override
        public Job<T> best(long nowNanos, int freeSlots) {
            return jobs.isEmpty() ? null : jobs.first();
        }

        @Override
        public int size() {
            return jobs.size();
        }

        @Override
        public Iterable<Job<T>> all() {
            return jobs;
        }
    }

    /**
     * HRRN's jobs in flat arrays, so the decision is one tight pass over primitives: the lowest
     * priority first, then the highest {@link Policy#urgency}, then the earliest arrival. Removal
     * swaps the last job into the hole.
     */
    private static final class Scanned<T> extends WaitingJobs<T> {
        private Job<T>[] jobs = newArray(64);
        private int[] priorities = new int[64];
        private long[] arrivals = new long[64];
        private double[] inverseSeconds = new double[64];
        private int size;

        Scanned(Policy policy) {
            super(policy);
        }

        @SuppressWarnings("unchecked")
        private static <T> Job<T>[] newArray(int length) {
            return (Job<T>[]) new Job<?>[length];
        }

        @Override
        public void add(Job<T> job) {
            if (size == jobs.length) {
                int grown = size * 2;
                jobs = Arrays.copyOf(jobs, grown);
                priorities = Arrays.copyOf(priorities, grown);
                arrivals = Arrays.copyOf(arrivals, grown);
                inverseSeconds = Arrays.copyOf(inverseSeconds, grown);
            }
            jobs[size] = job;
            priorities[size] = job.priority();
            arrivals[size] = job.arrivalNanos();
            inverseSeconds[size] = job.inverseSeconds();
            job.index = size++;
        }

        @Override
        public boolean remove(Job<T> job) {
            int i = job.index;
            if (i < 0 || i >= size || jobs[i] != job) {
                return false;
            }
            int last = --size;
            jobs[i] = jobs[last];
            priorities[i] = priorities[last];
            arrivals[i] = arrivals[last];
            inverseSeconds[i] = inverseSeconds[last];
            jobs[i].index = i;
            jobs[last] = null;
            job.index = -1;
            return true;
        }

        @Override
        public Job<T> best(long nowNanos, int freeSlots) {
            int best = -1;
            int bestPriority = Integer.MAX_VALUE;
            double bestUrgency = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < size; i++) {
                int priority = priorities[i];
                if (priority > bestPriority) {
                    continue;
                }
                double urgency = (nowNanos - arrivals[i]) * inverseSeconds[i];
                if (priority < bestPriority || urgency > bestUrgency
                        || (urgency == bestUrgency && jobs[i].sequence() < jobs[best].sequence())) {
                    best = i;
                    bestPriority = priority;
                    bestUrgency = urgency;
                }
            }
            return best < 0 ? null : jobs[best];
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public Iterable<Job<T>> all() {
            return Arrays.asList(jobs).subList(0, size);
        }
    }
}
