package dev.triage.proxy.scheduler;

import java.time.Duration;

/**
 * How one backend's queue is run.
 *
 * @param policy the order of waiting jobs
 * @param starvationTimeout τ: a job that waited longer goes first; {@link Duration#ZERO} turns it off
 * @param maxQueue how many jobs may wait; a job beyond that is refused
 * @param slots how many jobs the backend runs at once (1 for a serial server)
 */
public record SchedulerSettings(Policy policy, Duration starvationTimeout, int maxQueue, int slots) {

    public SchedulerSettings {
        if (starvationTimeout.isNegative()) {
            throw new IllegalArgumentException("starvationTimeout: " + starvationTimeout + " (expected: >= 0)");
        }
        if (maxQueue < 0) {
            throw new IllegalArgumentException("maxQueue: " + maxQueue + " (expected: >= 0)");
        }
        if (slots < 1) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= 1)");
        }
    }
}
