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
    private final int running;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * @param free gives the slot back to its queue; run once
     * @param running the backend's busy slots once this one was taken, itself included
     */
    Slot(Runnable free, long queuedNanos, boolean starvationPromoted, int running) {
        this.free = free;
        this.queuedNanos = queuedNanos;
        this.starvationPromoted = starvationPromoted;
        this.running = running;
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

    /** Jobs holding a slot of this backend once this one took its own, itself included. */
    public int running() {
        return running;
    }

    /** True when the starvation timeout, not the policy, sent this job. */
    public boolean starvationPromoted() {
        return starvationPromoted;
    }
}
