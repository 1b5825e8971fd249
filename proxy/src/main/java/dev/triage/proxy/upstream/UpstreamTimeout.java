package dev.triage.proxy.upstream;

import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * The upstream timeout of one call: fires when the backend has been asked for its next message and
 * stays silent longer than the limit. It counts only while the relay waits on the backend: time
 * spent waiting for a slow client to take a chunk is the client's, not the backend's.
 *
 * <p>Runs on the call's event loop, as every method must be called.
 */
final class UpstreamTimeout {

    private final EventLoop loop;
    private final long limitNanos;
    private final LongConsumer expired;
    private boolean waiting;
    private long waitingSinceNanos;
    private boolean stopped;
    private ScheduledFuture<?> check;

    /** @param expired hears how long the backend was silent, in nanoseconds, once, when the limit passes */
    UpstreamTimeout(EventLoop loop, Duration limit, LongConsumer expired) {
        this.loop = loop;
        this.limitNanos = limit.toNanos();
        this.expired = expired;
    }

    /** Starts counting; call once, after the first {@link #waiting()}. */
    void start() {
        schedule(limitNanos);
    }

    /** The backend was asked for its next message: from now on its silence counts. */
    void waiting() {
        waiting = true;
        waitingSinceNanos = System.nanoTime();
    }

    /** The backend sent a message: its silence no longer counts until the next {@link #waiting()}. */
    void answered() {
        waiting = false;
    }

    void stop() {
        stopped = true;
        if (check != null) {
            check.cancel(false);
        }
    }

    private void schedule(long delayNanos) {
        check = loop.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
        if (stopped) {
            return;
        }
        if (!waiting) {
            schedule(limitNanos);
            return;
        }
        long silent = System.nanoTime() - waitingSinceNanos;
        if (silent >= limitNanos) {
            stopped = true;
            expired.accept(silent);
        } else {
            schedule(limitNanos - silent);
        }
    }
}
