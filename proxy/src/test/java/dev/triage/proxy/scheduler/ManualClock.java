package dev.triage.proxy.scheduler;

import java.time.Duration;

/** A clock that moves only when a test moves it; a dispatch loop may read it from its own thread. */
final class ManualClock implements Clock {

    private volatile long nanos = 1_000_000_000L;

    @Override
    public long nanoTime() {
        return nanos;
    }

    void advance(Duration by) {
        nanos += by.toNanos();
    }

    void advanceSeconds(double seconds) {
        nanos += (long) (seconds * 1e9);
    }
}
