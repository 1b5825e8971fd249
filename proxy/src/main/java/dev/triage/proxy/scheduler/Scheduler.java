package dev.triage.proxy.scheduler;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

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
 * <p>A preemptive policy ({@code laps}) also hears how running jobs progress and may ask for one to be
 * paused; the holder then pauses it, and the job waits again with what it has received:
 *
 * <pre>{@code
 * scheduler.progress(next, tokensSoFar);               // as the answer streams
 * Dispatch<String> victim = scheduler.pauseDue();       // after each event, once no slot is free
 * ...
 * scheduler.pause(victim, tokensSoFar);                // or release(victim) if it finished meanwhile
 * }</pre>
 *
 * @param <T> the caller's payload
 */
public final class Scheduler<T> {

    /** Completed requests the remaining-length model learns from. */
    static final int REMAINING_HISTORY = 500;

    private final SchedulerSettings settings;
    private final Clock clock;
    private final WaitingJobs<T> waiting;
    private final StarvationGuard<T> guard;
    private final List<Dispatch<T>> running = new ArrayList<>();
    private final RemainingLength remaining = new RemainingLength(REMAINING_HISTORY);
    private long nextSequence;
    private long nextLevelEntry;
    private int busySlots;
    private long starvationPromotions;
    private long pauses;
    private long resumes;
    private long reprefilledTokens;

    /** A scheduler for a policy that is one order over jobs: {@code fcfs}, {@code sjf}, {@code hrrn} or {@code laps}. */
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
        return submit(payload, priority, cost, false);
    }

    /**
     * Adds a job, as {@link #submit(Object, int, JobCost)}, that its holder may be able to pause.
     *
     * @param pausable true when the holder can pause the job and resume it later
     */
    public Optional<Job<T>> submit(T payload, int priority, JobCost cost, boolean pausable) {
        if (waiting.size() >= settings.maxQueue()) {
            return Optional.empty();
        }
        JobProgress progress = new JobProgress(settings.laps().stableWindows(), nextLevelEntry++);
        Job<T> job = new Job<>(payload, nextSequence++, clock.nanoTime(), priority, cost, pausable, progress);
        enqueue(job);
        return Optional.of(job);
    }

    private void enqueue(Job<T> job) {
        if (settings.policy() == Policy.LAPS) {
            predictRemaining(job);
        }
        waiting.add(job);
        guard.add(job);
    }

    /** Sets the job's {@code laps} key: its predicted remaining time, once its rate is perceptible. */
    private void predictRemaining(Job<T> job) {
        JobProgress progress = job.progress();
        if (settings.laps().stableWindows() == 0) {
            progress.perceive(job.expectedSeconds() / Math.max(1, job.expectedTokens()));
        }
        if (progress.perceptible()) {
            double tokensLeft = remaining.expectedRemaining(job.expectedTokens(), progress.tokens());
            progress.remainingSeconds(tokensLeft * progress.secondsPerToken());
        }
    }

    /**
     * Gives a job that is still waiting a new cost (a better estimate made while it waited); its place
     * in the queue follows. Nothing happens to a job already dispatched.
     */
    public void resize(Job<T> job, JobCost cost) {
        if (!waiting.remove(job)) {
            return;
        }
        job.resize(cost);
        if (settings.policy() == Policy.LAPS) {
            predictRemaining(job);
        }
        waiting.addAgain(job);
    }

    /**
     * Gives every waiting job that {@code changed} selects its cost by {@code cost}, as {@link #resize} does.
     *
     * @return true when it selected any
     */
    public boolean recost(Predicate<Job<T>> changed, Function<Job<T>, JobCost> cost) {
        List<Job<T>> selected = new ArrayList<>();
        for (Job<T> job : waiting.all()) {
            if (changed.test(job)) {
                selected.add(job);
            }
        }
        selected.forEach(job -> resize(job, cost.apply(job)));
        return !selected.isEmpty();
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
        int freeSlots = settings.slots() - busySlots;
        Job<T> head = waiting.best(now, freeSlots);
        Job<T> starved = waiting.ordersStarved() ? null : guard.starved(now);
        Job<T> job = starved != null ? starved : head;
        boolean promoted = starved != null ? starved != head : waiting.promotedByAge(job, now, freeSlots);
        if (promoted) {
            starvationPromotions++;
        }
        waiting.remove(job);
        guard.remove(job);
        waiting.dispatched(job, now);
        busySlots++;
        Dispatch<T> dispatch = new Dispatch<>(job, now, promoted);
        if (dispatch.resumes()) {
            resumes++;
            reprefilledTokens += dispatch.resumedTokens();
        }
        job.progress().started(now);
        running.add(dispatch);
        return dispatch;
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
        running.remove(dispatch);
        dispatch.job().progress().stopped(clock.nanoTime());
        waiting.released(dispatch, clock.nanoTime());
    }

    /**
     * A running job's progress: the tokens it has generated so far, over all its runs. Updates its
     * attained service, its token rate and, under {@code laps}, its level. Ignored once the dispatch
     * was released or paused (a report that crossed the ending).
     */
    public void progress(Dispatch<T> dispatch, long tokensSoFar) {
        if (dispatch.released()) {
            return;
        }
        JobProgress progress = dispatch.job().progress();
        long now = clock.nanoTime();
        LapsSettings laps = settings.laps();
        if (progress.produced(tokensSoFar, now, laps.windowTokens())) {
            progress.checkRate(laps.rateTolerance());
        }
        if (settings.policy() == Policy.LAPS) {
            progress.moveTo(laps.levelOf(progress.attainedSeconds(now)), nextLevelEntry++);
        }
    }

    /**
     * The running job a preemptive policy wants paused now, or null. Only when every slot is busy: the
     * job the queue would send next must belong to a better level (or client priority) than a running
     * pausable job that has moved down a level during its current run (it used up its quantum in the
     * level above: a run is never cut short sooner, so a resume's prefill always buys progress), whose
     * level is at most {@link LapsSettings#preemptiveLevels}, that was paused fewer than
     * {@link LapsSettings#maxPreemptions} times and that has not been in the system longer than τ. Of
     * those, the deepest and then the most served is chosen. One pause is asked at a time: until the
     * holder answers with {@link #pause} or {@link #release}, this returns null.
     */
    public Dispatch<T> pauseDue() {
        return pauseDue(settings.slots(), dispatch -> true);
    }

    /**
     * {@link #pauseDue()} with {@code slotsInForce} slots of the settings' in use: fewer while an
     * adaptive limit holds the backend below them or a backend of the pool is ejected, when every slot
     * in force is busy long before all of the settings' are. Only a run that {@code freesASlot} is
     * paused: pausing one on an ejected backend would cut it and give the waiting job nothing.
     */
    public Dispatch<T> pauseDue(int slotsInForce, Predicate<Dispatch<T>> freesASlot) {
        if (!settings.preemptive() || busySlots < Math.min(slotsInForce, settings.slots()) || waiting.size() == 0) {
            return null;
        }
        for (Dispatch<T> dispatch : running) {
            if (dispatch.pauseRequested()) {
                return null;
            }
        }
        long now = clock.nanoTime();
        Job<T> starved = guard.starved(now);
        Job<T> next = starved != null ? starved : waiting.best(now, 1);
        LapsSettings laps = settings.laps();
        Dispatch<T> victim = null;
        for (Dispatch<T> dispatch : running) {
            Job<T> job = dispatch.job();
            JobProgress progress = job.progress();
            if (!job.pausable() || !progress.movedDownThisRun() || progress.level() > laps.preemptiveLevels()
                    || progress.preemptions() >= laps.maxPreemptions() || guard.isStarved(job, now) || !outranks(next, job)
                    || !freesASlot.test(dispatch)) {
                continue;
            }
            if (victim == null || deeper(job, victim.job(), now)) {
                victim = dispatch;
            }
        }
        if (victim != null) {
            victim.requestPause();
        }
        return victim;
    }

    private static boolean outranks(Job<?> waiting, Job<?> running) {
        if (waiting.priority() != running.priority()) {
            return waiting.priority() < running.priority();
        }
        return waiting.progress().level() < running.progress().level();
    }

    private static boolean deeper(Job<?> a, Job<?> b, long now) {
        if (a.priority() != b.priority()) {
            return a.priority() > b.priority();
        }
        if (a.progress().level() != b.progress().level()) {
            return a.progress().level() > b.progress().level();
        }
        return a.progress().attainedSeconds(now) > b.progress().attainedSeconds(now);
    }

    /**
     * The holder paused a running job (its backend stopped generating): the slot frees, and the job
     * waits again, in its level, with the tokens it had generated, until it is dispatched to resume.
     *
     * @throws IllegalStateException when this dispatch was already released or paused: a bug in the caller
     */
    public void pause(Dispatch<T> dispatch, long tokensSoFar) {
        progress(dispatch, tokensSoFar);
        release(dispatch);
        Job<T> job = dispatch.job();
        job.progress().countPause();
        pauses++;
        enqueue(job);
    }

    /** The holder of a dispatch asked to pause cannot pause it: the job is not asked again. */
    public void declinePause(Dispatch<T> dispatch) {
        if (dispatch.released()) {
            return;
        }
        dispatch.job().neverPause();
        dispatch.clearPauseRequest();
    }

    /**
     * A completed job's real output length against its estimate: what the remaining-length model
     * learns from.
     */
    public void feedback(double expectedTokens, double actualTokens) {
        remaining.learn(expectedTokens, actualTokens);
    }

    /** The waiting jobs in the order they would be sent now: starved jobs oldest first, then the policy's order. */
    public List<Job<T>> waitingInDispatchOrder() {
        long now = clock.nanoTime();
        if (waiting.ordersStarved()) {
            return waiting.inOrder(now);
        }
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
     * returns them for the caller to refuse. A paused job is never among them: its client already
     * has part of its answer.
     */
    public List<Job<T>> removeOverdue(long maxWaitNanos) {
        long now = clock.nanoTime();
        List<Job<T>> overdue = new ArrayList<>();
        for (Job<T> job : guard.byArrival()) {
            if (job.waitedNanos(now) < maxWaitNanos) {
                break;
            }
            if (!job.progress().paused()) {
                overdue.add(job);
            }
        }
        overdue.forEach(this::cancel);
        return overdue;
    }

    /**
     * The clock time at which the oldest waiting job that is not paused will have waited
     * {@code maxWaitNanos}: the next {@link #removeOverdue} deadline. Empty when no such job waits.
     */
    public OptionalLong nextOverdueNanos(long maxWaitNanos) {
        for (Job<T> job : guard.byArrival()) {
            if (!job.progress().paused()) {
                return OptionalLong.of(job.arrivalNanos() + maxWaitNanos);
            }
        }
        return OptionalLong.empty();
    }

    /** True when {@code job} has waited longer than the starvation timeout τ at {@code nowNanos}. */
    public boolean isStarved(Job<T> job, long nowNanos) {
        return guard.isStarved(job, nowNanos);
    }

    /**
     * Expected seconds of work waiting, over the slots in force ({@code slotsInForce}, at most the
     * settings' slots: an adaptive limit, or a pool with a member ejected): a rough time until a new job
     * would start.
     */
    public double expectedBacklogSeconds(int slotsInForce) {
        double total = 0;
        for (Job<T> job : waiting.all()) {
            total += job.expectedSeconds();
        }
        return total / Math.max(1, Math.min(slotsInForce, settings.slots()));
    }

    public int waitingCount() {
        return waiting.size();
    }

    public int busySlots() {
        return busySlots;
    }

    /** True when no job may take a slot without this scheduler ({@link WaitingJobs#seesEveryJob}). */
    public boolean seesEveryJob() {
        return waiting.seesEveryJob();
    }

    public SchedulerSettings settings() {
        return settings;
    }

    /** How many dispatches the starvation timeout decided instead of the policy. */
    public long starvationPromotions() {
        return starvationPromotions;
    }

    /** How many times a running job was paused. */
    public long pauses() {
        return pauses;
    }

    /** How many dispatches resumed a paused job. */
    public long resumes() {
        return resumes;
    }

    /** Tokens the resumed jobs had generated before their pause, which their backend reads again. */
    public long reprefilledTokens() {
        return reprefilledTokens;
    }
}
