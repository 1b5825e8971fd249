package dev.triage.proxy.scheduler;

import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.EwsjfStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One backend's queue as the rest of the proxy sees it: a thread-safe front for a {@link Scheduler}
 * that lives on the {@link DispatchLoop}'s thread. Every method posts a task to that thread.
 */
public final class BackendQueue {

    private static final Logger log = LoggerFactory.getLogger(BackendQueue.class);

    /** Completed requests the live ranking accuracy looks back over. */
    static final int RANKING_WINDOW = 500;

    private final DispatchLoop loop;
    private final Clock clock;
    private final String name;
    private final Scheduler<Waiter> scheduler;
    private final long maxQueueWaitNanos;
    private final RankingWindow rankingWindow = new RankingWindow(RANKING_WINDOW);
    /** The jobs holding a slot, for the expected start of those waiting; loop thread only. */
    private final Set<Dispatch<Waiter>> running = new HashSet<>();
    private final EwsjfQueues<Waiter> ewsjf;
    private boolean refusing;
    /** The pending wake-up at the oldest waiting job's wait deadline; null when none is set. */
    private ScheduledFuture<?> wakeUp;

    // Written on the loop thread after each change, read by anyone (metrics, health).
    private volatile int waitingCount;
    private volatile int busySlots;
    private volatile long starvationPromotions;
    private volatile double rankingAccuracy = Double.NaN;

    /**
     * @param ewsjf the scheduler's waiting jobs when its policy is ewsjf, else null
     */
    BackendQueue(DispatchLoop loop, Clock clock, String name, Scheduler<Waiter> scheduler, EwsjfQueues<Waiter> ewsjf,
            Duration maxQueueWait) {
        this.loop = loop;
        this.clock = clock;
        this.name = name;
        this.scheduler = scheduler;
        this.ewsjf = ewsjf;
        this.maxQueueWaitNanos = maxQueueWait.toNanos();
    }

    public String name() {
        return name;
    }

    public SchedulerSettings settings() {
        return scheduler.settings();
    }

    public int waitingCount() {
        return waitingCount;
    }

    public int busySlots() {
        return busySlots;
    }

    /** How many jobs the starvation timeout has sent ahead of the policy's choice. */
    public long starvationPromotions() {
        return starvationPromotions;
    }

    /** The ranking accuracy over the last completed requests of known length; NaN while unknown. */
    public double rankingAccuracy() {
        return rankingAccuracy;
    }

    /**
     * Reports a completed job's real output length against the estimate it was scheduled by: the
     * feedback that keeps the live ranking accuracy.
     */
    public void feedback(double expectedTokens, double actualTokens) {
        loop.execute(() -> {
            rankingWindow.add(expectedTokens, actualTokens);
            rankingAccuracy = rankingWindow.accuracy();
        });
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
        long now = clock.nanoTime();
        List<QueueSnapshot.Waiting> entries = new ArrayList<>();
        PriorityQueue<Double> slotsFree = slotsFreeIn(now);
        for (Job<Waiter> job : scheduler.waitingInDispatchOrder()) {
            long waited = job.waitedNanos(now);
            JobTag tag = job.payload().tag;
            double start = slotsFree.poll();
            double finish = start + job.expectedSeconds();
            slotsFree.add(finish);
            entries.add(new QueueSnapshot.Waiting(entries.size() + 1, tag.id(), tag.routeKind(), job.expectedTokens(),
                    job.expectedSeconds(), job.priority(), TimeUnit.NANOSECONDS.toMillis(waited),
                    scheduler.isStarved(job, now), start, finish));
        }
        return new QueueSnapshot(name, scheduler.settings().policy().label(), scheduler.settings().slots(),
                scheduler.busySlots(), Double.isNaN(rankingAccuracy) ? null : rankingAccuracy, entries);
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
        while (slotsFree.size() < scheduler.settings().slots()) {
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
        Waiter waiter = new Waiter(tag, callbacks, listener);
        loop.execute(() -> admit(waiter, priority, cost));
        return waiter;
    }

    void release(Dispatch<Waiter> dispatch) {
        loop.execute(() -> {
            scheduler.release(dispatch);
            running.remove(dispatch);
            refuseOverdue();
            drain();
        });
    }

    void refuseAll() {
        loop.execute(() -> {
            refusing = true;
            for (Job<Waiter> job : scheduler.waitingInDispatchOrder()) {
                scheduler.cancel(job);
                job.payload().refuse(new Refusal(Refusal.Reason.SHUTTING_DOWN, 0));
            }
            publish();
        });
    }

    private void admit(Waiter waiter, int priority, JobCost cost) {
        if (waiter.cancelled) {
            return;
        }
        if (refusing) {
            waiter.refuse(new Refusal(Refusal.Reason.SHUTTING_DOWN, 0));
            return;
        }
        refuseOverdue();
        var job = scheduler.submit(waiter, priority, cost);
        if (job.isEmpty()) {
            long retryAfter = Math.max(1, (long) Math.ceil(scheduler.expectedBacklogSeconds()));
            waiter.refuse(new Refusal(Refusal.Reason.QUEUE_FULL, retryAfter));
            return;
        }
        waiter.job = job.get();
        wakeAtNextDeadline();
        drain();
    }

    /** Refuses the jobs that have waited the queue's limit, so that none of them takes a slot. */
    private void refuseOverdue() {
        if (maxQueueWaitNanos == 0) {
            return;
        }
        List<Job<Waiter>> overdue = scheduler.removeOverdue(maxQueueWaitNanos);
        if (!overdue.isEmpty()) {
            publish();
            overdue.forEach(job -> job.payload().refuse(new Refusal(Refusal.Reason.QUEUE_TIMEOUT, 0)));
        }
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
            publish();
        }
    }

    private void drain() {
        Dispatch<Waiter> dispatch;
        while ((dispatch = scheduler.dispatchNext()) != null) {
            running.add(dispatch);
            dispatch.job().payload().dispatch(new Slot(this, dispatch));
        }
        publish();
    }

    private void publish() {
        waitingCount = scheduler.waitingCount();
        busySlots = scheduler.busySlots();
        starvationPromotions = scheduler.starvationPromotions();
    }

    /** The scheduler's payload: the listener and the bookkeeping of one submission, loop-thread only. */
    final class Waiter implements Ticket {
        private final JobTag tag;
        private final Executor callbacks;
        private final JobListener listener;
        private Job<Waiter> job;
        private boolean cancelled;

        private Waiter(JobTag tag, Executor callbacks, JobListener listener) {
            this.tag = tag;
            this.callbacks = callbacks;
            this.listener = listener;
        }

        @Override
        public void cancel() {
            loop.execute(() -> withdraw(this));
        }

        /** Hands the slot to the listener; a slot the listener never gets to hold is freed here. */
        private void dispatch(Slot slot) {
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

        private void refuse(Refusal refusal) {
            try {
                callbacks.execute(() -> listener.refused(refusal));
            } catch (RejectedExecutionException e) {
                log.debug("refusal not delivered: the submitter's executor has stopped");
            }
        }
    }
}
