package dev.triage.proxy.scheduler;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A backend slot held by one dispatched job. {@link #release()} may be called from any thread and any
 * number of times: only the first call frees the slot, so every ending of a request (success, error,
 * timeout, a client gone) can call it without counting.
 */
public final class Slot {

    private final Runnable free;
    private final long queuedNanos;
    private final boolean starvationPromoted;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * @param free gives the slot back to its queue; run once
     */
    Slot(Runnable free, long queuedNanos, boolean starvationPromoted) {
        this.free = free;
        this.queuedNanos = queuedNanos;
        this.starvationPromoted = starvationPromoted;
    }

    /** Frees the slot; the next waiting job may go. Only the first call has an effect. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            free.run();
        }
    }

    /** How long the job waited in the queue, in nanoseconds: 0 for a job that never waited. */
    public long queuedNanos() {
        return queuedNanos;
    }

    /** True when the starvation timeout, not the policy, sent this job. */
    public boolean starvationPromoted() {
        return starvationPromoted;
    }
}
