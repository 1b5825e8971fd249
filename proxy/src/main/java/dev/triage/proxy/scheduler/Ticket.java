package dev.triage.proxy.scheduler;

/** A submitted job, as its submitter holds it: the one thing to do with it is withdraw it. */
public interface Ticket {

    /**
     * Withdraws the job if it is still waiting; it will then never be dispatched nor refused. If it
     * was already dispatched, the listener's slot must still be released by its holder.
     */
    void cancel();
}
