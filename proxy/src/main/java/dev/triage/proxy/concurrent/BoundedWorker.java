package dev.triage.proxy.concurrent;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One background thread that takes work handed over from event loops without ever making them wait:
 * at most {@code capacity} tasks wait for it, and a task offered beyond that (or after {@link #close})
 * is refused at once, for the caller to drop and count. Tasks run one at a time, in order.
 *
 * <p>Once woken, the thread lets work gather for {@link #GATHER} before it looks again, and sleeps
 * until the next offer only when none came meanwhile. Under steady traffic it so wakes about a hundred
 * times a second however many requests hand it work: waking a thread for each request costs the event
 * loop a system call and takes a core from the network threads and the backend at every request.
 * Work offered is therefore run up to {@code GATHER} late; work {@link #submit submitted} (someone
 * waits for it) wakes the thread at once.
 *
 * <pre>{@code
 * BoundedWorker writer = new BoundedWorker("triage-feedback", 4096);
 * if (!writer.offer(() -> write(line))) {
 *     dropped.increment();
 * }
 * }</pre>
 */
public final class BoundedWorker {

    private static final Logger log = LoggerFactory.getLogger(BoundedWorker.class);

    static final Duration GATHER = Duration.ofMillis(10);

    private final BlockingQueue<Runnable> tasks;
    private final Thread thread;
    private volatile boolean closed;
    /** Set while the thread sleeps until the next offer; an offer then wakes it. */
    private volatile boolean asleep;

    /** @param role the thread's name, numbered as {@link DaemonThreadFactory} does */
    public BoundedWorker(String role, int capacity) {
        this.tasks = new ArrayBlockingQueue<>(capacity);
        this.thread = new DaemonThreadFactory(role).newThread(this::work);
        thread.start();
    }

    /** Hands a task over; false when {@code capacity} tasks already wait or the worker is closed. */
    public boolean offer(Runnable task) {
        if (!enqueue(task)) {
            return false;
        }
        if (asleep) {
            LockSupport.unpark(thread);
        }
        return true;
    }

    /**
     * Runs {@code task} after those already handed over, waking the thread at once; the future says
     * when it has run.
     *
     * @throws RejectedExecutionException when {@code capacity} tasks already wait or the worker is closed
     */
    public Future<?> submit(Runnable task) {
        FutureTask<Void> future = new FutureTask<>(task, null);
        if (!enqueue(future)) {
            throw new RejectedExecutionException(thread.getName() + " is " + (closed ? "closed" : "full"));
        }
        LockSupport.unpark(thread);
        return future;
    }

    /**
     * Queues a task unless closed. A task that lands just as the worker closes is taken back, so
     * that what is accepted is what runs.
     */
    private boolean enqueue(Runnable task) {
        if (closed || !tasks.offer(task)) {
            return false;
        }
        return !closed || !tasks.remove(task);
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Takes no more tasks and waits up to {@code timeout} for those handed over to run.
     *
     * @return false when some were still running or waiting at the timeout
     */
    public boolean close(Duration timeout) {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(Math.max(1, timeout.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    private void work() {
        while (true) {
            runWaiting();
            if (closed) {
                runWaiting(); // an offer that passed its check before the close
                return;
            }
            LockSupport.parkNanos(this, GATHER.toNanos());
            if (tasks.isEmpty()) {
                asleep = true;
                while (tasks.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                asleep = false;
            }
        }
    }

    private void runWaiting() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("a task on {} failed", thread.getName(), e);
            }
        }
    }
}
