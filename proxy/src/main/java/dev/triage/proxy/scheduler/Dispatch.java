package dev.triage.proxy.scheduler;

/**
 * A job that has been given a slot. The slot stays taken until {@link Scheduler#release} or
 * {@link Scheduler#pause} is called with this dispatch, one of them exactly once.
 *
 * @param <T> the caller's payload
 */
public final class Dispatch<T> {

    private final Job<T> job;
    private final long dispatchedNanos;
    private final boolean starvationPromoted;
    private final long resumedTokens;
    private boolean released;
    private boolean pauseRequested;

    Dispatch(Job<T> job, long dispatchedNanos, boolean starvationPromoted) {
        this.job = job;
        this.dispatchedNanos = dispatchedNanos;
        this.starvationPromoted = starvationPromoted;
        this.resumedTokens = job.progress().preemptions() > 0 ? job.progress().tokens() : -1;
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

    /** True when this dispatch resumes a paused job, which continues after {@link #resumedTokens()}. */
    public boolean resumes() {
        return resumedTokens >= 0;
    }

    /** For a resume, the tokens the job had generated before it; -1 for a first run. */
    public long resumedTokens() {
        return resumedTokens;
    }

    /** True once the scheduler asked for this run to be paused. */
    public boolean pauseRequested() {
        return pauseRequested;
    }

    void requestPause() {
        pauseRequested = true;
    }

    void clearPauseRequest() {
        pauseRequested = false;
    }

    boolean released() {
        return released;
    }

    boolean markReleased() {
        if (released) {
            return false;
        }
        released = true;
        return true;
    }
}
