package dev.triage.proxy.scheduler;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A backend slot held by one dispatched job. {@link #release()} may be called from any thread and any
 * number of times: only the first call frees the slot, so every ending of a request (success, error,
 * timeout, a client gone) can call it without counting. A pausable job may instead give the slot
 * back with {@link #pause}, which counts as its release: the job then waits to resume.
 */
public final class Slot {

    private final Runnable free;
    /** The queue and the dispatch of a slot the dispatch loop granted; null for a slot taken at once. */
    private final BackendQueue queue;
    private final Dispatch<BackendQueue.Waiter> dispatch;
    private final int running;
    private final int backend;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * A slot taken at once, without the scheduler: it never waited, and never pauses.
     *
     * @param free gives the slot back to its queue; run once
     * @param running the backend's busy slots once this one was taken, itself included
     * @param backend the index of the backend it is bound to, among its queue's
     */
    Slot(Runnable free, int running, int backend) {
        this.free = free;
        this.backend = backend;
        this.queue = null;
        this.dispatch = null;
        this.running = running;
    }

    /**
     * A slot the dispatch loop granted to a queued job.
     *
     * @param running the backend's busy slots once this one was taken, itself included
     * @param backend the index of the backend it is bound to, among its queue's
     */
    Slot(BackendQueue queue, Dispatch<BackendQueue.Waiter> dispatch, int running, int backend) {
        this.free = () -> queue.release(dispatch, backend);
        this.backend = backend;
        this.queue = queue;
        this.dispatch = dispatch;
        this.running = running;
    }

    /** Frees the slot; the next waiting job may go. Only the first call (of this or {@link #pause}) has an effect. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            free.run();
        }
    }

    /**
     * The job stopped with {@code tokensSoFar} generated over all its runs: the slot frees and the job
     * waits to resume. Has no effect after the slot was released or paused.
     *
     * @throws IllegalStateException for a slot taken at once, which the scheduler never asks to pause
     */
    public void pause(long tokensSoFar) {
        if (dispatch == null) {
            throw new IllegalStateException("a slot taken at once is never paused");
        }
        if (released.compareAndSet(false, true)) {
            queue.pause(dispatch, tokensSoFar, backend);
        }
    }

    /** The job cannot pause: it is never asked again. */
    public void declinePause() {
        if (dispatch != null) {
            queue.declinePause(dispatch);
        }
    }

    /**
     * Reports the tokens the job has generated so far, over all its runs (see {@link BackendQueue#reportsProgress});
     * a slot taken at once has no scheduler to tell.
     */
    public void progress(long tokensSoFar) {
        if (dispatch != null && !released.get()) {
            queue.progress(dispatch, tokensSoFar);
        }
    }

    /** The index of the backend the slot is bound to, among its queue's {@link BackendQueue#backends()}. */
    public int backend() {
        return backend;
    }

    /** True when this slot resumes a paused job. */
    public boolean resumes() {
        return dispatch != null && dispatch.resumes();
    }

    /** How long the job waited in the queue, in nanoseconds: 0 for a job that never waited. */
    public long queuedNanos() {
        return dispatch == null ? 0 : dispatch.queuedNanos();
    }

    /** Jobs holding a slot of this backend once this one took its own, itself included. */
    public int running() {
        return running;
    }

    /** True when the starvation timeout, not the policy, sent this job. */
    public boolean starvationPromoted() {
        return dispatch != null && dispatch.starvationPromoted();
    }
}
