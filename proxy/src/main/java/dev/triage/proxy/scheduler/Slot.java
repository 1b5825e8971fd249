package dev.triage.proxy.scheduler;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A backend slot held by one dispatched job. {@link #release()} may be called from any thread and any
 * number of times: only the first call frees the slot, so every ending of a request (success, error,
 * timeout, a client gone) can call it without counting.
 */
public final class Slot {

    private final BackendQueue queue;
    private final Dispatch<BackendQueue.Waiter> dispatch;
    private final AtomicBoolean released = new AtomicBoolean();

    Slot(BackendQueue queue, Dispatch<BackendQueue.Waiter> dispatch) {
        this.queue = queue;
        this.dispatch = dispatch;
    }

    /** Frees the slot; the next waiting job may go. Only the first call has an effect. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            queue.release(dispatch);
        }
    }

    /** How long the job waited in the queue, in nanoseconds. */
    public long queuedNanos() {
        return dispatch.queuedNanos();
    }

    /** Jobs holding a slot of this backend once this one took its own, itself included. */
    public int running() {
        return dispatch.running();
    }

    /** True when the starvation timeout, not the policy, sent this job. */
    public boolean starvationPromoted() {
        return dispatch.starvationPromoted();
    }
}
