package dev.triage.proxy.concurrent;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One background thread that takes work handed over from event loops without ever making them wait:
 * at most {@code capacity} tasks wait for it, and a task offered beyond that (or after {@link #close})
 * is refused at once, for the caller to drop and count. Tasks run one at a time, in order.
 *
 * <pre>{@code
 * BoundedWorker writer = new BoundedWorker("triage-feedback", 4096);
 * if (!writer.offer(() -> write(line))) {
 *     dropped.increment();
 * }
 * }</pre>
 */
public final class BoundedWorker {

    private final ThreadPoolExecutor thread;

    /** @param role the thread's name, numbered as {@link DaemonThreadFactory} does */
    public BoundedWorker(String role, int capacity) {
        this.thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(capacity),
                new DaemonThreadFactory(role));
    }

    /** Hands a task over; false when {@code capacity} tasks already wait or the worker is closed. */
    public boolean offer(Runnable task) {
        try {
            thread.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /**
     * Runs {@code task} after those already handed over; the future says when it has run.
     *
     * @throws RejectedExecutionException when {@code capacity} tasks already wait or the worker is closed
     */
    public Future<?> submit(Runnable task) {
        return thread.submit(task);
    }

    public boolean isClosed() {
        return thread.isShutdown();
    }

    /**
     * Takes no more tasks and waits up to {@code timeout} for those handed over to run.
     *
     * @return false when some were still running or waiting at the timeout
     */
    public boolean close(Duration timeout) {
        thread.shutdown();
        try {
            return thread.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
