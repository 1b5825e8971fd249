package dev.triage.proxy.scheduler.ewsjf;

import java.util.List;

/**
 * EWSJF at one backend at a moment, for the admin API: what sizes it partitions by, its queues with
 * their waiting jobs, the parameters in force, and the trials the meta-optimizer has scored.
 *
 * @param trialMillis how long the current trial has run; 0 while none runs (tuning off, or the next
 *     parameters being chosen)
 * @param trialCompletions jobs completed in the current trial so far; 0 while none runs
 * @param trials the scored trials, oldest first (the latest {@link EwsjfQueues#HISTORY} of them)
 */
public record EwsjfStatus(String sizeFeature, Theta theta, boolean tuned, List<Queue> queues, int trialIndex,
        long trialMillis, int trialCompletions, List<Trial> trials) {

    public EwsjfStatus {
        queues = List.copyOf(queues);
        trials = List.copyOf(trials);
    }

    /**
     * One queue.
     *
     * @param position 1 for the queue of the smallest sizes
     * @param waiting jobs waiting in it now
     */
    public record Queue(int position, SizeRange range, int waiting) {}
}
