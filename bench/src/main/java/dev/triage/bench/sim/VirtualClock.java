package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.Clock;

/** The simulator's clock: it stands still until the event loop moves it to the next event. */
final class VirtualClock implements Clock {

    private long nanos;

    @Override
    public long nanoTime() {
        return nanos;
    }

    void moveTo(long nanos) {
        if (nanos < this.nanos) {
            throw new IllegalStateException("time runs backwards: " + nanos + " < " + this.nanos);
        }
        this.nanos = nanos;
    }
}
