package dev.triage.proxy.scheduler;

import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns every backend's {@link Scheduler}. Submissions, cancellations, releases
 * and timeouts are all tasks on it, so the queues need no locks and every decision sees a consistent
 * state. Listeners hear the decisions on the executor they were submitted with. Time is read from
 * the injected {@link Clock}: a queue's wait limit is a deadline on it, checked whenever the queue
 * changes and when the loop wakes at the next deadline.
 *
 * <pre>{@code
 * DispatchLoop loop = new DispatchLoop(Clock.system());
 * BackendQueue chat = loop.addBackend("chat", settings, Duration.ZERO);
 * Ticket ticket = chat.submit(tag, priority, expectedTokens, expectedSeconds, ctx.executor(), listener);
 * }</pre>
 */
public final class DispatchLoop implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DispatchLoop.class);

    private final Clock clock;
    private final ScheduledThreadPoolExecutor executor;
    private final List<BackendQueue> backends = new ArrayList<>();
    private ExecutorService learning;

    public DispatchLoop(Clock clock) {
        this.clock = clock;
        this.executor = new ScheduledThreadPoolExecutor(1, new DaemonThreadFactory("triage-dispatch"));
    }

    /**
     * Adds a backend queue, with EWSJF's default settings should its policy be ewsjf. Call before
     * traffic starts.
     *
     * @param maxQueueWait how long a job may wait before it is refused; {@link Duration#ZERO} for no limit
     */
    public BackendQueue addBackend(String name, SchedulerSettings settings, Duration maxQueueWait) {
        return addBackend(name, settings, EwsjfSettings.defaults(), maxQueueWait);
    }

    /**
     * Adds a backend queue. Call before traffic starts.
     *
     * @param ewsjf how EWSJF runs, when the settings' policy is ewsjf; its refinements and its
     *     meta-optimizer run on a thread of their own, never on the dispatch thread
     * @param maxQueueWait how long a job may wait before it is refused; {@link Duration#ZERO} for no limit
     */
    public BackendQueue addBackend(String name, SchedulerSettings settings, EwsjfSettings ewsjf, Duration maxQueueWait) {
        return addBackend(name, settings, ewsjf, maxQueueWait, null);
    }

    /**
     * Adds a backend queue whose time is shared among tenants, as {@link #addBackend(String,
     * SchedulerSettings, EwsjfSettings, Duration)} adds one. Call before traffic starts.
     *
     * @param shares how the backend's time is shared among the tenants of its jobs ({@link JobTag#tenant});
     *     null for no fair shares
     */
    public BackendQueue addBackend(String name, SchedulerSettings settings, EwsjfSettings ewsjf,
            Duration maxQueueWait, TenantShares shares) {
        return addBackend(name, settings, ewsjf, maxQueueWait, shares, List.of(PoolMember.only(name, settings.slots())));
    }

    /**
     * Adds a queue whose jobs are bound, when a slot frees, to one of several backends (late binding,
     * see {@link PoolSlots}), as {@link #addBackend(String, SchedulerSettings, EwsjfSettings, Duration,
     * TenantShares)} adds one. Call before traffic starts.
     *
     * @param members the backends serving the queue; the settings' slots are theirs together
     */
    public synchronized BackendQueue addBackend(String name, SchedulerSettings settings, EwsjfSettings ewsjf,
            Duration maxQueueWait, TenantShares shares, List<PoolMember> members) {
        int slots = members.stream().mapToInt(PoolMember::slots).sum();
        if (slots != settings.slots()) {
            throw new IllegalArgumentException("slots: " + settings.slots() + " (expected: the backends' " + slots + ")");
        }
        EwsjfQueues<BackendQueue.Waiter> queues = settings.policy() == Policy.EWSJF && shares == null
                ? new EwsjfQueues<>(ewsjf, clock, learning()) : null;
        Scheduler<BackendQueue.Waiter> scheduler;
        if (shares != null) {
            scheduler = new Scheduler<>(settings, clock, new FairShareJobs<>(settings.policy(), waiter -> waiter.tag().tenant(),
                    shares.weights(), settings.starvationTimeout().toNanos(), shares.ledger()));
        } else if (queues != null) {
            scheduler = new Scheduler<>(settings, clock, queues);
        } else {
            scheduler = new Scheduler<>(settings, clock);
        }
        BackendQueue queue = new BackendQueue(this, clock, name, scheduler, queues, maxQueueWait, new PoolSlots(members));
        backends.add(queue);
        return queue;
    }

    /** The thread EWSJF learns on, started with the first backend that needs it. */
    private ExecutorService learning() {
        if (learning == null) {
            learning = Executors.newSingleThreadExecutor(new DaemonThreadFactory("triage-ewsjf"));
        }
        return learning;
    }

    public synchronized List<BackendQueue> backends() {
        return List.copyOf(backends);
    }

    /**
     * Stops every queue: waiting jobs are refused with {@link Refusal.Reason#SHUTTING_DOWN}, and so is
     * every later submission. Jobs already dispatched run on.
     */
    public void refuseAll() {
        for (BackendQueue queue : backends()) {
            queue.refuseAll();
        }
    }

    void execute(Runnable task) {
        try {
            executor.execute(() -> runLogged(task));
        } catch (RejectedExecutionException e) {
            // Closed: the process is stopping and no queue will be served again.
            log.debug("dispatch loop closed; task dropped");
        }
    }

    /**
     * Runs {@code task} on the loop once the clock reads {@code clockNanos}, or about then: the delay
     * is measured on the injected clock and waited in real time, so the task checks the clock again
     * rather than trust it. Null when the loop is closed.
     */
    ScheduledFuture<?> wakeAt(long clockNanos, Runnable task) {
        long delay = Math.max(0, clockNanos - clock.nanoTime());
        try {
            return executor.schedule(() -> runLogged(task), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    private static void runLogged(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            // A failing listener must not take the scheduling thread down with it.
            log.error("dispatch task failed", e);
        }
    }

    @Override
    public synchronized void close() {
        executor.shutdownNow();
        if (learning != null) {
            learning.shutdownNow();
        }
    }
}
