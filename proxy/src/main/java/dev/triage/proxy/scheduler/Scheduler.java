package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One backend's queue and slots: jobs wait here until a slot is free, then leave in the order the
 * {@link Policy}, the client priority and the {@link StarvationGuard} decide.
 *
 * <p>Not thread-safe, by design: exactly one thread owns a scheduler (the proxy's
 * {@link DispatchLoop}, or the simulator's event loop), so no decision ever needs a lock.
 *
 * <pre>{@code
 * Scheduler<String> scheduler = new Scheduler<>(settings, Clock.system());
 * scheduler.submit("request-1", 0, 120, 2.4);
 * Dispatch<String> next = scheduler.dispatchNext();   // null when no slot is free or none waits
 * ...
 * scheduler.release(next);                            // exactly once, when the response ends
 * }</pre>
 *
 * @param <T> the caller's payload
 */
public final class Scheduler<T> {

    private final SchedulerSettings settings;
    private final Clock clock;
    private final WaitingJobs<T> waiting;
    private final StarvationGuard<T> guard;
    private long nextSequence;
    private int busySlots;
    private long starvationPromotions;

    /** A scheduler for a policy that is one order over jobs: {@code fcfs}, {@code sjf} or {@code hrrn}. */
    public Scheduler(SchedulerSettings settings, Clock clock) {
        this(settings, clock, WaitingJobs.forPolicy(settings.policy()));
    }

    /**
     * A scheduler whose waiting jobs are kept by a policy with state of its own (ewsjf's queues), which
     * must be the policy the settings name.
     */
    public Scheduler(SchedulerSettings settings, Clock clock, WaitingJobs<T> waiting) {
        if (waiting.policy != settings.policy()) {
            throw new IllegalArgumentException("waiting jobs kept for " + waiting.policy.label() + " (expected: "
                    + settings.policy().label() + ", the policy of the settings)");
        }
        this.settings = settings;
        this.clock = clock;
        this.waiting = waiting;
        this.guard = new StarvationGuard<>(settings.starvationTimeout().toNanos());
    }

    /**
     * Adds a job whose prompt is unknown, stamped with the clock's time as its arrival: {@link
     * #submit(Object, int, JobCost)} with {@link JobCost#ofAnswer}.
     *
     * @param expectedSeconds the expected service time S; must be positive (HRRN divides by it)
     */
    public Optional<Job<T>> submit(T payload, int priority, double expectedTokens, double expectedSeconds) {
        return submit(payload, priority, JobCost.ofAnswer(expectedTokens, expectedSeconds));
    }

    /**
     * Adds a job, stamped with the clock's time as its arrival. Empty when the queue is full: the
     * caller refuses the request.
     */
    public Optional<Job<T>> submit(T payload, int priority, JobCost cost) {
        if (waiting.size() >= settings.maxQueue()) {
            return Optional.empty();
        }
        Job<T> job = new Job<>(payload, nextSequence++, clock.nanoTime(), priority, cost);
        waiting.add(job);
        guard.add(job);
        return Optional.of(job);
    }

    /** Removes a job that is still waiting; false when it was already dispatched or removed. */
    public boolean cancel(Job<T> job) {
        if (!waiting.remove(job)) {
            return false;
        }
        guard.remove(job);
        return true;
    }

    /**
     * Takes a slot for the next job, or returns null when every slot is busy or no job waits. A job
     * that has waited longer than τ is taken first, oldest first; otherwise the policy's head.
     */
    public Dispatch<T> dispatchNext() {
        if (busySlots >= settings.slots() || waiting.size() == 0) {
            return null;
        }
        long now = clock.nanoTime();
        Job<T> head = waiting.best(now, settings.slots() - busySlots);
        Job<T> starved = guard.starved(now);
        Job<T> job = starved != null ? starved : head;
        boolean promoted = starved != null && starved != head;
        if (promoted) {
            starvationPromotions++;
        }
        waiting.remove(job);
        guard.remove(job);
        busySlots++;
        return new Dispatch<>(job, now, promoted);
    }

    /**
     * Frees the slot a dispatch took.
     *
     * @throws IllegalStateException when this dispatch was already released: a bug in the caller
     */
    public void release(Dispatch<T> dispatch) {
        if (!dispatch.markReleased()) {
            throw new IllegalStateException("slot released twice: " + dispatch.job());
        }
        busySlots--;
        waiting.released(dispatch, clock.nanoTime());
    }

    /** The waiting jobs in the order they would be sent now: starved jobs oldest first, then the policy's order. */
    public List<Job<T>> waitingInDispatchOrder() {
        long now = clock.nanoTime();
        List<Job<T>> ordered = guard.allStarved(now);
        Set<Job<T>> starved = new HashSet<>(ordered);
        for (Job<T> job : waiting.inOrder(now)) {
            if (!starved.contains(job)) {
                ordered.add(job);
            }
        }
        return ordered;
    }

    /**
     * Removes the jobs that have waited {@code maxWaitNanos} or longer by the clock, oldest first, and
     * returns them for the caller to refuse.
     */
    public List<Job<T>> removeOverdue(long maxWaitNanos) {
        long now = clock.nanoTime();
        List<Job<T>> overdue = new ArrayList<>();
        Job<T> oldest;
        while ((oldest = guard.oldest()) != null && oldest.waitedNanos(now) >= maxWaitNanos) {
            cancel(oldest);
            overdue.add(oldest);
        }
        return overdue;
    }

    /**
     * The clock time at which the oldest waiting job will have waited {@code maxWaitNanos}: the next
     * {@link #removeOverdue} deadline. Empty when no job waits.
     */
    public OptionalLong nextOverdueNanos(long maxWaitNanos) {
        Job<T> oldest = guard.oldest();
        return oldest == null ? OptionalLong.empty() : OptionalLong.of(oldest.arrivalNanos() + maxWaitNanos);
    }

    /** True when {@code job} has waited longer than the starvation timeout τ at {@code nowNanos}. */
    public boolean isStarved(Job<T> job, long nowNanos) {
        return guard.isStarved(job, nowNanos);
    }

    /** Expected seconds of work waiting, over the slots: a rough time until a new job would start. */
    public double expectedBacklogSeconds() {
        double total = 0;
        for (Job<T> job : waiting.all()) {
            total += job.expectedSeconds();
        }
        return total / settings.slots();
    }

    public int waitingCount() {
        return waiting.size();
    }

    public int busySlots() {
        return busySlots;
    }

    public SchedulerSettings settings() {
        return settings;
    }

    /** How many dispatches the starvation timeout decided instead of the policy. */
    public long starvationPromotions() {
        return starvationPromotions;
    }
}
