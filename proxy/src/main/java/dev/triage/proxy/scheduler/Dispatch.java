package dev.triage.proxy.scheduler;

/**
 * A job that has been given a slot. The slot stays taken until {@link Scheduler#release} is called
 * with this dispatch, which must happen exactly once.
 *
 * @param <T> the caller's payload
 */
public final class Dispatch<T> {

    private final Job<T> job;
    private final long dispatchedNanos;
    private final boolean starvationPromoted;
    private boolean released;

    Dispatch(Job<T> job, long dispatchedNanos, boolean starvationPromoted) {
        this.job = job;
        this.dispatchedNanos = dispatchedNanos;
        this.starvationPromoted = starvationPromoted;
    }

    public Job<T> job() {
        return job;
    }

    public long dispatchedNanos() {
        return dispatchedNanos;
    }

    /** How long the job waited for its slot. */
    public long queuedNanos() {
        return dispatchedNanos - job.arrivalNanos();
    }

    /** True when the starvation timeout, not the policy, chose this job. */
    public boolean starvationPromoted() {
        return starvationPromoted;
    }

    boolean markReleased() {
        if (released) {
            return false;
        }
        released = true;
        return true;
    }
}
