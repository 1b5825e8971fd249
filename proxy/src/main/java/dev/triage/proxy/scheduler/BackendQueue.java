package dev.triage.proxy.scheduler;

import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.EwsjfStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One backend's queue as the rest of the proxy sees it: a thread-safe front for a {@link Scheduler}
 * that lives on the {@link DispatchLoop}'s thread. A request that finds a slot free and nobody
 * waiting takes it at once on its own thread ({@link #takeIdleSlot}); every other decision is a task
 * on the loop. Both take slots from one {@link SlotPermits}, which keeps them consistent.
 */
public final class BackendQueue {

    private static final Logger log = LoggerFactory.getLogger(BackendQueue.class);

    /** Completed requests the live ranking accuracy looks back over. */
    static final int RANKING_WINDOW = 500;
    /** The longest queue that is ordered to tell a newcomer its place. */
    static final int ORDERED_AT_ADMISSION = 1024;
    /** How long ranking feedback may wait to be counted, gathering more. */
    private static final long FEEDBACK_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Recosting passes per dispatch at most, while the models keep changing under them. */
    private static final int RECOST_PASSES = 4;

    private final DispatchLoop loop;
    private final Clock clock;
    private final String name;
    private final Scheduler<Waiter> scheduler;
    private final long maxQueueWaitNanos;
    private final RankingWindow rankingWindow = new RankingWindow(RANKING_WINDOW);
    /** Completed requests' (estimated, actual) lengths on their way to the ranking window. */
    private final Queue<double[]> completed = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean feedbackPosted = new AtomicBoolean();
    private final PoolSlots pool;
    private final SlotPermits permits;
    /** The jobs the loop gave a slot, for the expected start of those waiting; loop thread only. */
    private final Set<Dispatch<Waiter>> running = new HashSet<>();
    private final EwsjfQueues<Waiter> ewsjf;
    /** Sets the slots from how the backend's speed answers its batch; null for a fixed count. Loop thread only. */
    private ConcurrencyLimiter limiter;
    /** Set on the loop when the queue stops; read by {@link #takeIdleSlot} on any thread. */
    private volatile boolean refusing;
    /** The pending wake-up at the oldest waiting job's wait deadline; null when none is set. */
    private ScheduledFuture<?> wakeUp;

    // Written on the loop thread after each change, read by anyone (metrics, health).
    private volatile long starvationPromotions;
    private volatile long pauses;
    private volatile long resumes;
    private volatile long reprefilledTokens;
    private volatile double rankingAccuracy = Double.NaN;

    /**
     * @param ewsjf the scheduler's waiting jobs when its policy is ewsjf, else null
     */
    BackendQueue(DispatchLoop loop, Clock clock, String name, Scheduler<Waiter> scheduler, EwsjfQueues<Waiter> ewsjf,
            Duration maxQueueWait, PoolSlots pool) {
        this.loop = loop;
        this.clock = clock;
        this.name = name;
        this.scheduler = scheduler;
        this.ewsjf = ewsjf;
        this.maxQueueWaitNanos = maxQueueWait.toNanos();
        this.pool = pool;
        this.permits = pool.permits();
    }

    public String name() {
        return name;
    }

    public SchedulerSettings settings() {
        return scheduler.settings();
    }

    /**
     * How many requests the backend may run at once now: {@code max-concurrency}, or the limit an
     * adaptive one has found, never more than the settings' slots.
     */
    public int slots() {
        return permits.limit();
    }

    /**
     * Lets {@code limiter} set the slots from now on, within the settings' slots; call before traffic
     * starts. It hears every completed request whose length is known ({@link #feedback}).
     *
     * @throws IllegalArgumentException when the limiter may go above the settings' slots
     */
    public void adaptSlots(ConcurrencyLimiter limiter) {
        if (limiter.max() > scheduler.settings().slots()) {
            throw new IllegalArgumentException("limiter up to " + limiter.max() + " (expected: at most the "
                    + scheduler.settings().slots() + " slots of the settings)");
        }
        permits.limit(limiter.limit());
        loop.execute(() -> this.limiter = limiter);
    }

    /** Jobs submitted that have neither a slot nor an answer yet. */
    public int waitingCount() {
        return permits.queued();
    }

    public int busySlots() {
        return permits.busy();
    }

    /** The backends this queue binds its jobs to, in the order {@link Slot#backend()} counts them. */
    public List<PoolMember> backends() {
        return pool.members();
    }

    /** Slots of backend {@code index} that jobs hold, ejected or not. */
    public int busySlots(int index) {
        return pool.busy(index);
    }

    /** False while backend {@code index} is ejected: no job is bound to it. */
    public boolean inService(int index) {
        return pool.up(index);
    }

    /**
     * Stops binding jobs to backend {@code index} (its probe failed, or it refused a connection); its
     * running jobs finish there. The last backend in service stays.
     */
    public void eject(int index) {
        // The probe's clock, not the queue's: the time is weighed against when a probe was sent.
        if (pool.eject(index, System.nanoTime())) {
            log.warn("backend {} ejected from queue {}", pool.members().get(index).name(), name);
        }
    }

    /**
     * Binds jobs to backend {@code index} again, once a probe sent after it was last found down passes.
     *
     * @param probeSentNanos when that probe was sent ({@link System#nanoTime()})
     */
    public void readmit(int index, long probeSentNanos) {
        if (pool.readmit(index, probeSentNanos)) {
            log.info("backend {} back in service in queue {}", pool.members().get(index).name(), name);
            loop.execute(this::drain);
        }
    }

    /** How many jobs the starvation timeout has sent ahead of the policy's choice. */
    public long starvationPromotions() {
        return starvationPromotions;
    }

    /** How many times a running job was paused for another. */
    public long pauses() {
        return pauses;
    }

    /** How many dispatches resumed a paused job. */
    public long resumes() {
        return resumes;
    }

    /** Tokens resumed jobs had generated before their pause, which their backend read again. */
    public long reprefilledTokens() {
        return reprefilledTokens;
    }

    /** True when the policy orders jobs by their progress, so holders should report it ({@link Slot#progress}). */
    public boolean reportsProgress() {
        return scheduler.settings().policy() == Policy.LAPS;
    }

    /** The ranking accuracy over the last completed requests of known length; NaN while unknown. */
    public double rankingAccuracy() {
        return rankingAccuracy;
    }

    /**
     * Reports a completed job's real output length against the estimate it was scheduled by, and the
     * time it held its slot: the feedback that keeps the live ranking accuracy and an adaptive limit.
     */
    public void feedback(double expectedTokens, double actualTokens, double serviceSeconds) {
        completed.add(new double[] {expectedTokens, actualTokens, serviceSeconds});
        // One loop task, a moment later, takes all that came in meanwhile: under load the loop wakes
        // a hundred times a second for the feedback, not once per request.
        if (feedbackPosted.compareAndSet(false, true)) {
            loop.wakeAt(clock.nanoTime() + FEEDBACK_DELAY_NANOS, this::takeFeedback);
        }
    }

    private void takeFeedback() {
        feedbackPosted.set(false);
        double[] lengths;
        boolean limitChanged = false;
        while ((lengths = completed.poll()) != null) {
            rankingWindow.add(lengths[0], lengths[1]);
            scheduler.feedback(lengths[0], lengths[1]);
            if (limiter != null && limiter.completed(lengths[1], lengths[2], scheduler.waitingCount() > 0)) {
                limitChanged = true;
            }
        }
        rankingAccuracy = rankingWindow.accuracy();
        if (limitChanged) {
            permits.limit(limiter.limit());
            drain();
        }
    }

    /**
     * EWSJF's queues when the policy is ewsjf. Off the loop thread only their {@code theta()},
     * {@code queueCount()}, {@code trialCount()} and {@code lastTrial()} may be read; the rest is
     * {@link #ewsjfStatus()}.
     */
    public Optional<EwsjfQueues<?>> ewsjf() {
        return Optional.ofNullable(ewsjf);
    }

    /** EWSJF's queues, parameters and trials as they stand, computed on the loop thread; empty for other policies. */
    public CompletableFuture<Optional<EwsjfStatus>> ewsjfStatus() {
        CompletableFuture<Optional<EwsjfStatus>> status = new CompletableFuture<>();
        loop.execute(() -> status.complete(ewsjf().map(queues -> queues.status(clock.nanoTime()))));
        return status;
    }

    /** The queue as it stands, in dispatch order; computed on the loop thread. */
    public CompletableFuture<QueueSnapshot> snapshot() {
        CompletableFuture<QueueSnapshot> snapshot = new CompletableFuture<>();
        loop.execute(() -> snapshot.complete(takeSnapshot()));
        return snapshot;
    }

    private QueueSnapshot takeSnapshot() {
        takeFeedback();
        long now = clock.nanoTime();
        List<QueueSnapshot.Waiting> entries = new ArrayList<>();
        for (ExpectedRun expected : expectedRuns(now)) {
            Job<Waiter> job = expected.job();
            JobTag tag = job.payload().tag;
            JobProgress progress = job.progress();
            entries.add(new QueueSnapshot.Waiting(entries.size() + 1, tag.id(), tag.routeKind(), tag.tenant(), job.expectedTokens(),
                    job.expectedSeconds(), job.priority(), TimeUnit.NANOSECONDS.toMillis(job.waitedNanos(now)),
                    scheduler.isStarved(job, now), progress.level(), progress.attainedSeconds(now), progress.paused(),
                    expected.start(), expected.finish()));
        }
        return new QueueSnapshot(name, scheduler.settings().policy().label(), permits.limit(),
                permits.busy(), Double.isNaN(rankingAccuracy) ? null : rankingAccuracy, entries);
    }

    /** A waiting job and when it is expected to start and finish, in seconds from now. */
    private record ExpectedRun(Job<Waiter> job, double start, double finish) {}

    /** The waiting jobs in dispatch order, each expected to start in the first slot expected to be free. */
    private List<ExpectedRun> expectedRuns(long now) {
        List<ExpectedRun> runs = new ArrayList<>();
        PriorityQueue<Double> slotsFree = slotsFreeIn(now);
        for (Job<Waiter> job : scheduler.waitingInDispatchOrder()) {
            double start = slotsFree.poll();
            double finish = start + job.expectedSeconds();
            slotsFree.add(finish);
            runs.add(new ExpectedRun(job, start, finish));
        }
        return runs;
    }

    /**
     * Seconds from now until each slot is expected to be free: a running job's expected service time
     * less what it has run (at least 0, for one that overran its estimate), 0 for an idle slot.
     */
    private PriorityQueue<Double> slotsFreeIn(long now) {
        PriorityQueue<Double> slotsFree = new PriorityQueue<>();
        for (Dispatch<Waiter> dispatch : running) {
            double ran = (now - dispatch.dispatchedNanos()) / 1e9;
            slotsFree.add(Math.max(0, dispatch.job().expectedSeconds() - ran));
        }
        // A job that took an idle slot at once was never sized by the queue: its slot counts as free now. Only as
        // many idle slots as jobs wait can be taken: a limit of thousands costs no more than one of a few.
        int idle = Math.min(permits.limit() - slotsFree.size(), scheduler.waitingCount());
        for (int i = 0; i < idle; i++) {
            slotsFree.add(0.0);
        }
        return slotsFree;
    }

    /**
     * Queues a job whose prompt is unknown: {@link #submit(JobTag, int, JobCost, Executor, JobListener)}
     * with {@link JobCost#ofAnswer}.
     *
     * @param expectedSeconds expected service time, positive
     */
    public Ticket submit(JobTag tag, int priority, double expectedTokens, double expectedSeconds, Executor callbacks,
            JobListener listener) {
        return submit(tag, priority, JobCost.ofAnswer(expectedTokens, expectedSeconds), callbacks, listener);
    }

    /**
     * Queues a job. The listener hears, on {@code callbacks}, either {@code dispatched} (once a slot is
     * free and the job's turn has come) or {@code refused}; never both, and nothing after the returned
     * ticket is cancelled while the job still waits. A slot that {@code callbacks} refuses to take (its
     * event loop has stopped) is released at once.
     *
     * <pre>{@code
     * Ticket ticket = queue.submit(tag, priority, cost, ctx.executor(), listener);
     * }</pre>
     *
     * @param callbacks where the listener is called: the submitter's own thread, such as its
     *     connection's event loop, so that the listener needs no hand-over of its own
     */
    public Ticket submit(JobTag tag, int priority, JobCost cost, Executor callbacks, JobListener listener) {
        return submit(tag, priority, cost, false, callbacks, listener);
    }

    /**
     * Queues a job, as {@link #submit(JobTag, int, JobCost, Executor, JobListener)}, that its holder can
     * pause when asked ({@link JobListener#pauseRequested}): a paused job waits again, hears
     * {@code dispatched} again when it may resume, is withdrawn by its ticket while it waits, and is
     * never refused for its wait once it has run.
     *
     * @param pausable true when the listener can pause the job and resume it
     */
    public Ticket submit(JobTag tag, int priority, JobCost cost, boolean pausable, Executor callbacks,
            JobListener listener) {
        return submit(tag, priority, CostSource.fixed(cost), pausable, callbacks, listener);
    }

    /**
     * Queues a job, as {@link #submit(JobTag, int, JobCost, boolean, Executor, JobListener)}, whose cost
     * is computed again, while it waits, whenever its source's models change.
     */
    public Ticket submit(JobTag tag, int priority, CostSource cost, boolean pausable, Executor callbacks,
            JobListener listener) {
        Waiter waiter = new Waiter(tag, callbacks, listener, cost);
        permits.enqueue();
        loop.execute(() -> admit(waiter, priority, pausable));
        return waiter;
    }

    /**
     * A slot taken at once, on the caller's thread, when one is free and no job waits for one (or is on
     * its way to the queue); null otherwise, and the caller {@link #submit submits} the job instead. A
     * job that takes its slot this way is never seen by the scheduler: it overtakes no one, since
     * nobody waits, and it needs no estimate to go. Never under a policy that must see every job
     * ({@link Scheduler#seesEveryJob}).
     */
    public Slot takeIdleSlot() {
        if (refusing || scheduler.seesEveryJob() || !permits.takeIdle()) {
            return null;
        }
        int backend = pool.bind();
        return new Slot(() -> releaseIdle(backend), pool.running(backend), backend);
    }

    private void releaseIdle(int backend) {
        if (pool.unbind(backend)) {
            loop.execute(this::drain);
        }
    }

    void release(Dispatch<Waiter> dispatch, int backend) {
        loop.execute(() -> {
            scheduler.release(dispatch);
            running.remove(dispatch);
            pool.unbind(backend);
            refuseOverdue();
            drain();
        });
    }

    /** The slot frees as in {@link #release}, and the job counts as queued again before it does. */
    void pause(Dispatch<Waiter> dispatch, long tokensSoFar, int backend) {
        loop.execute(() -> {
            scheduler.pause(dispatch, tokensSoFar);
            running.remove(dispatch);
            permits.enqueue();
            pool.unbind(backend);
            drain();
        });
    }

    void declinePause(Dispatch<Waiter> dispatch) {
        loop.execute(() -> {
            scheduler.declinePause(dispatch);
            drain();
        });
    }

    void progress(Dispatch<Waiter> dispatch, long tokensSoFar) {
        loop.execute(() -> {
            scheduler.progress(dispatch, tokensSoFar);
            askForPause();
        });
    }

    void refuseAll() {
        loop.execute(() -> {
            refusing = true;
            for (Job<Waiter> job : scheduler.waitingInDispatchOrder()) {
                scheduler.cancel(job);
                permits.dequeue();
                job.payload().refuse(new Refusal(Refusal.Reason.SHUTTING_DOWN, 0));
            }
        });
    }

    private void admit(Waiter waiter, int priority, boolean pausable) {
        if (waiter.cancelled) {
            permits.dequeue();
            return;
        }
        if (refusing) {
            permits.dequeue();
            waiter.refuse(new Refusal(Refusal.Reason.SHUTTING_DOWN, 0));
            return;
        }
        refuseOverdue();
        var job = scheduler.submit(waiter, priority, waiter.currentCost(), pausable);
        if (job.isEmpty()) {
            long retryAfter = Math.max(1, (long) Math.ceil(scheduler.expectedBacklogSeconds(permits.limit())));
            permits.dequeue();
            waiter.refuse(new Refusal(Refusal.Reason.QUEUE_FULL, retryAfter));
            return;
        }
        waiter.job = job.get();
        wakeAtNextDeadline();
        drain();
        tellAdmitted(waiter);
    }

    /**
     * Tells a job where it stands: its place in the dispatch order and its expected wait, as the queue
     * view would show them now; 0 and 0 when it was sent at once. It costs one ordering of the queue,
     * for a job that waits, so beyond {@value #ORDERED_AT_ADMISSION} waiting jobs nothing is told.
     */
    private void tellAdmitted(Waiter waiter) {
        if (waiter.slot != null) {
            waiter.admitted(0, 0);
            return;
        }
        if (scheduler.waitingCount() > ORDERED_AT_ADMISSION) {
            return;
        }
        List<ExpectedRun> runs = expectedRuns(clock.nanoTime());
        for (int i = 0; i < runs.size(); i++) {
            if (runs.get(i).job() == waiter.job) {
                waiter.admitted(i + 1, runs.get(i).start());
                return;
            }
        }
    }

    /** Refuses the jobs that have waited the queue's limit, so that none of them takes a slot. */
    private void refuseOverdue() {
        if (maxQueueWaitNanos == 0) {
            return;
        }
        List<Job<Waiter>> overdue = scheduler.removeOverdue(maxQueueWaitNanos);
        overdue.forEach(job -> {
            permits.dequeue();
            job.payload().refuse(new Refusal(Refusal.Reason.QUEUE_TIMEOUT, 0));
        });
    }

    /**
     * One wake-up at a time, at the oldest job's deadline: if that job left meanwhile, the wake-up
     * finds nothing overdue and sets the next one.
     */
    private void wakeAtNextDeadline() {
        if (maxQueueWaitNanos == 0 || wakeUp != null) {
            return;
        }
        scheduler.nextOverdueNanos(maxQueueWaitNanos).ifPresent(deadline -> wakeUp = loop.wakeAt(deadline, () -> {
            wakeUp = null;
            refuseOverdue();
            wakeAtNextDeadline();
        }));
    }

    private void withdraw(Waiter waiter) {
        waiter.cancelled = true;
        if (waiter.job != null && scheduler.cancel(waiter.job)) {
            permits.dequeue();
        }
    }

    /**
     * Grants free slots to waiting jobs. The scheduler's own slot count stays within the permits taken,
     * so with a permit in hand and a job waiting it always has one to dispatch.
     */
    private void drain() {
        if (scheduler.waitingCount() > 0) {
            recostChanged();
        }
        while (scheduler.waitingCount() > 0 && permits.takeForQueued()) {
            Dispatch<Waiter> dispatch = scheduler.dispatchNext();
            running.add(dispatch);
            int backend = pool.bind();
            dispatch.job().payload().dispatch(new Slot(this, dispatch, pool.running(backend), backend));
        }
        askForPause();
    }

    /**
     * Costs again the waiting jobs whose models have changed since they were costed, pass after pass
     * until none has: the learner moves on its own thread, and a change in the middle of a pass would
     * leave the jobs costed before it and those after it ordered by different models. A learner that
     * kept moving through every pass leaves the rest to the next dispatch.
     */
    private void recostChanged() {
        for (int pass = 0; pass < RECOST_PASSES; pass++) {
            if (!scheduler.recost(job -> job.payload().costChanged(), job -> job.payload().currentCost())) {
                return;
            }
        }
    }

    /** Once no slot is free: asks the running job the policy wants paused, if any, to pause. */
    private void askForPause() {
        Dispatch<Waiter> victim = scheduler.pauseDue(permits.limit(), dispatch -> dispatch.job().payload().holdsASlotInService());
        if (victim != null) {
            victim.job().payload().askToPause();
        }
        publish();
    }

    private void publish() {
        starvationPromotions = scheduler.starvationPromotions();
        pauses = scheduler.pauses();
        resumes = scheduler.resumes();
        reprefilledTokens = scheduler.reprefilledTokens();
    }

    /** The scheduler's payload: the listener and the bookkeeping of one submission, loop-thread only. */
    final class Waiter implements Ticket {
        private final JobTag tag;
        private final Executor callbacks;
        private final JobListener listener;
        private CostSource costs;
        /** The version of {@link #costs} its job's cost was computed at. */
        private long costVersion;
        private Job<Waiter> job;
        /** The slot of its latest dispatch. */
        private Slot slot;
        private boolean cancelled;

        JobTag tag() {
            return tag;
        }

        private Waiter(JobTag tag, Executor callbacks, JobListener listener, CostSource costs) {
            this.tag = tag;
            this.callbacks = callbacks;
            this.listener = listener;
            this.costs = costs;
        }

        /** The cost by its source's models as they are now, remembering their version. */
        private JobCost currentCost() {
            costVersion = costs.version(); // read first: a change while computing is seen next time
            return costs.cost();
        }

        private boolean costChanged() {
            return costs.version() != costVersion;
        }

        /** Whether its run holds a slot of a backend in service: pausing it frees one that another job can take. */
        private boolean holdsASlotInService() {
            return slot != null && pool.up(slot.backend());
        }

        @Override
        public void cancel() {
            loop.execute(() -> withdraw(this));
        }

        @Override
        public void resize(CostSource cost) {
            loop.execute(() -> {
                costs = cost;
                if (job != null && !cancelled) {
                    scheduler.resize(job, currentCost());
                }
            });
        }

        /** Hands the slot to the listener; a slot the listener never gets to hold is freed here. */
        private void dispatch(Slot slot) {
            this.slot = slot;
            try {
                callbacks.execute(() -> {
                    try {
                        listener.dispatched(slot);
                    } catch (RuntimeException e) {
                        log.error("listener failed on dispatch; releasing its slot", e);
                        slot.release();
                    }
                });
            } catch (RejectedExecutionException e) {
                slot.release(); // the submitter's event loop has stopped, and its client with it
            }
        }

        /** Asks the listener to pause its latest slot; a listener that cannot be asked is not asked again. */
        private void askToPause() {
            Slot held = slot;
            try {
                callbacks.execute(() -> {
                    try {
                        listener.pauseRequested(held);
                    } catch (RuntimeException e) {
                        log.error("listener failed on a pause request; it is not asked again", e);
                        held.declinePause();
                    }
                });
            } catch (RejectedExecutionException e) {
                held.declinePause(); // the submitter's event loop has stopped, and its client with it
            }
        }

        private void admitted(int position, double expectedWaitSeconds) {
            try {
                callbacks.execute(() -> listener.admitted(position, expectedWaitSeconds));
            } catch (RejectedExecutionException e) {
                log.debug("admission not delivered: the submitter's executor has stopped");
            }
        }

        private void refuse(Refusal refusal) {
            try {
                callbacks.execute(() -> listener.refused(refusal));
            } catch (RejectedExecutionException e) {
                log.debug("refusal not delivered: the submitter's executor has stopped");
            }
        }
    }
}
