package dev.triage.proxy.scheduler;

import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.EwsjfStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
    private final Duration maxQueueWait;
    private final RankingWindow rankingWindow = new RankingWindow(RANKING_WINDOW);
    private final EwsjfQueues<Waiter> ewsjf;
    private boolean refusing;

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
        this.maxQueueWait = maxQueueWait;
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
        long tau = scheduler.settings().starvationTimeout().toNanos();
        List<QueueSnapshot.Waiting> entries = new ArrayList<>();
        for (Job<Waiter> job : scheduler.waitingInDispatchOrder()) {
            long waited = job.waitedNanos(now);
            JobTag tag = job.payload().tag;
            entries.add(new QueueSnapshot.Waiting(entries.size() + 1, tag.id(), tag.routeKind(), job.expectedTokens(),
                    job.expectedSeconds(), job.priority(), TimeUnit.NANOSECONDS.toMillis(waited),
                    tau > 0 && waited > tau));
        }
        return new QueueSnapshot(name, scheduler.settings().policy().label(), scheduler.settings().slots(),
                scheduler.busySlots(), Double.isNaN(rankingAccuracy) ? null : rankingAccuracy, entries);
    }

    /**
     * Queues a job whose prompt is unknown: {@link #submit(JobTag, int, JobCost, JobListener)} with
     * {@link JobCost#ofAnswer}.
     *
     * @param expectedSeconds expected service time, positive
     */
    public Ticket submit(JobTag tag, int priority, double expectedTokens, double expectedSeconds, JobListener listener) {
        return submit(tag, priority, JobCost.ofAnswer(expectedTokens, expectedSeconds), listener);
    }

    /**
     * Queues a job. The listener hears, on the loop thread, either {@code dispatched} (once a slot is
     * free and the job's turn has come) or {@code refused}; never both, and nothing after the returned
     * ticket is cancelled while the job still waits.
     */
    public Ticket submit(JobTag tag, int priority, JobCost cost, JobListener listener) {
        Waiter waiter = new Waiter(tag, listener);
        loop.execute(() -> admit(waiter, priority, cost));
        return waiter;
    }

    void release(Dispatch<Waiter> dispatch) {
        loop.execute(() -> {
            scheduler.release(dispatch);
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
        var job = scheduler.submit(waiter, priority, cost);
        if (job.isEmpty()) {
            long retryAfter = Math.max(1, (long) Math.ceil(scheduler.expectedBacklogSeconds()));
            waiter.refuse(new Refusal(Refusal.Reason.QUEUE_FULL, retryAfter));
            return;
        }
        waiter.job = job.get();
        if (!maxQueueWait.isZero()) {
            waiter.timeout = loop.schedule(() -> expire(waiter), maxQueueWait);
        }
        drain();
    }

    private void expire(Waiter waiter) {
        if (waiter.job != null && scheduler.cancel(waiter.job)) {
            publish();
            waiter.refuse(new Refusal(Refusal.Reason.QUEUE_TIMEOUT, 0));
        }
    }

    private void withdraw(Waiter waiter) {
        waiter.cancelled = true;
        if (waiter.job != null && scheduler.cancel(waiter.job)) {
            waiter.stopTimeout();
            publish();
        }
    }

    private void drain() {
        Dispatch<Waiter> dispatch;
        while ((dispatch = scheduler.dispatchNext()) != null) {
            Waiter waiter = dispatch.job().payload();
            waiter.stopTimeout();
            Slot slot = new Slot(this, dispatch);
            try {
                waiter.listener.dispatched(slot);
            } catch (RuntimeException e) {
                // The listener never got to hold the slot: free it here or the backend loses it for good.
                log.error("listener failed on dispatch; releasing its slot", e);
                slot.release();
            }
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
        private final JobListener listener;
        private Job<Waiter> job;
        private ScheduledFuture<?> timeout;
        private boolean cancelled;

        private Waiter(JobTag tag, JobListener listener) {
            this.tag = tag;
            this.listener = listener;
        }

        @Override
        public void cancel() {
            loop.execute(() -> withdraw(this));
        }

        private void refuse(Refusal refusal) {
            stopTimeout();
            listener.refused(refusal);
        }

        private void stopTimeout() {
            if (timeout != null) {
                timeout.cancel(false);
                timeout = null;
            }
        }
    }
}
