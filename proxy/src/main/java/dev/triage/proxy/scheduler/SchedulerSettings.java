package dev.triage.proxy.scheduler;

import java.time.Duration;
import java.util.Objects;

/**
 * How one backend's queue is run.
 *
 * @param policy the order of waiting jobs
 * @param starvationTimeout τ: a job that waited longer goes first; {@link Duration#ZERO} turns it off
 * @param maxQueue how many jobs may wait; a job beyond that is refused
 * @param slots how many jobs the backend runs at once (1 for a serial server)
 * @param laps the levels and preemption rules of the {@code laps} policy; ignored by the others
 */
public record SchedulerSettings(Policy policy, Duration starvationTimeout, int maxQueue, int slots, LapsSettings laps) {

    /** Settings with the {@code laps} defaults. */
    public SchedulerSettings(Policy policy, Duration starvationTimeout, int maxQueue, int slots) {
        this(policy, starvationTimeout, maxQueue, slots, LapsSettings.DEFAULTS);
    }

    public SchedulerSettings {
        Objects.requireNonNull(laps, "laps");
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

    /** True when running jobs may be paused for waiting ones. */
    public boolean preemptive() {
        return policy == Policy.LAPS && laps.preemptiveLevels() > 0 && laps.maxPreemptions() > 0;
    }
}
