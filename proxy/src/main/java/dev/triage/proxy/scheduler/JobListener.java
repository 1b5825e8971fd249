package dev.triage.proxy.scheduler;

/**
 * Hears the fate of one submitted job, on the executor its submitter gave {@link BackendQueue#submit}
 * (a connection's event loop), so that it may act on the news directly.
 */
public interface JobListener {

    /** The job has a slot; the listener must {@link Slot#release()} it when the job ends, however it ends. */
    void dispatched(Slot slot);

    /** The job was refused and holds no slot. */
    void refused(Refusal refusal);
}
