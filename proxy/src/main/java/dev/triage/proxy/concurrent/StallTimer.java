package dev.triage.proxy.concurrent;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Times one side of a connection that Triage waits on: fires once when a wait lasts longer than the
 * limit. It counts only while waiting ({@link #waiting()} to {@link #answered()}), so that time spent
 * on the other side is not charged to this one: the relay's upstream timeout counts while the backend
 * is asked for its next message, not while a slow client takes the last one, and the client's write
 * timeout counts while a response chunk waits for the client's socket.
 *
 * <pre>{@code
 * StallTimer backend = new StallTimer(channel.eventLoop(), Duration.ofSeconds(600), silentNanos -> fail());
 * backend.waiting();   // asked for the next message
 * backend.answered();  // it came
 * }</pre>
 *
 * <p>At most one check is scheduled at a time, and none while nothing is waited on, so an idle timer
 * costs nothing. Runs on one event loop, as every method must be called.
 */
public final class StallTimer {

    private final EventExecutor loop;
    private final long limitNanos;
    private final LongConsumer expired;
    private boolean waiting;
    private long waitingSinceNanos;
    private boolean stopped;
    private ScheduledFuture<?> check;

    /**
     * @param limit the longest wait; zero for none (the timer never fires)
     * @param expired hears how long the wait lasted, in nanoseconds, once, when the limit passes
     */
    public StallTimer(EventExecutor loop, Duration limit, LongConsumer expired) {
        this.loop = loop;
        this.limitNanos = limit.toNanos();
        this.expired = expired;
    }

    /** A wait begins, unless one is already under way (a wait is timed from its start). */
    public void waiting() {
        if (waiting || stopped || limitNanos == 0) {
            return;
        }
        waiting = true;
        waitingSinceNanos = System.nanoTime();
        if (check == null) {
            schedule(limitNanos);
        }
    }

    /** The wait is over: what was waited for came. */
    public void answered() {
        waiting = false;
    }

    /** Stops for good: nothing fires any more. */
    public void stop() {
        stopped = true;
        waiting = false;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void schedule(long delayNanos) {
        check = loop.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
        check = null;
        if (stopped || !waiting) {
            return;
        }
        long waited = System.nanoTime() - waitingSinceNanos;
        if (waited >= limitNanos) {
            stop();
            expired.accept(waited);
        } else {
            schedule(limitNanos - waited);
        }
    }
}
