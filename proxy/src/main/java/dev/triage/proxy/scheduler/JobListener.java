package dev.triage.proxy.scheduler;

/**
 * Hears the fate of one submitted job. Called on the {@link DispatchLoop}'s thread, so
 * implementations only hand the news over to their own thread and return.
 */
public interface JobListener {

    /** The job has a slot; the listener must {@link Slot#release()} it when the job ends, however it ends. */
    void dispatched(Slot slot);

    /** The job was refused and holds no slot. */
    void refused(Refusal refusal);
}
