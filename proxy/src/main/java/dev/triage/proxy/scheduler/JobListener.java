package dev.triage.proxy.scheduler;

/**
 * Hears the fate of one submitted job, on the executor its submitter gave {@link BackendQueue#submit}
 * (a connection's event loop), so that it may act on the news directly.
 */
public interface JobListener {

    /**
     * Where the job stood when the queue took it: {@code position}th in the dispatch order (1 is next)
     * and expected to start in {@code expectedWaitSeconds}; 0 and 0 when it was sent at once. Heard
     * once, before any later news but for a {@code dispatched} at once; not heard when the queue was
     * too long to order for it.
     */
    default void admitted(int position, double expectedWaitSeconds) {}

    /** The job has a slot; the listener must {@link Slot#release()} it when the job ends, however it ends. */
    void dispatched(Slot slot);

    /** The job was refused and holds no slot (a paused job too: it is not resumed). */
    void refused(Refusal refusal);

    /**
     * The scheduler asks the job, which holds {@code slot}, to pause so that a job of a better level
     * can run. The listener stops it and calls {@link Slot#pause}, after which the job waits again and
     * hears {@code dispatched} once more when it may resume; or, when it cannot pause (its stream has
     * already ended, say), {@link Slot#declinePause}. No other pause is asked until it answers or
     * releases its slot. Only jobs submitted as pausable are asked.
     */
    default void pauseRequested(Slot slot) {}
}
