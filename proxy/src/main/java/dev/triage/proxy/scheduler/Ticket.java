package dev.triage.proxy.scheduler;

/** A submitted job, as its submitter holds it: it can be withdrawn, or given a better estimate while it waits. */
public interface Ticket {

    /**
     * Gives the job a new source of its expected cost, from a better estimate made while it waited, and
     * places it by that; nothing happens if it is no longer waiting.
     */
    void resize(CostSource cost);

    /**
     * Withdraws the job if it is still waiting; it will then never be dispatched nor refused. If it
     * was already dispatched, the listener's slot must still be released by its holder.
     */
    void cancel();
}
