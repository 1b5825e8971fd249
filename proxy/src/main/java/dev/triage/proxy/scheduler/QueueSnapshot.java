package dev.triage.proxy.scheduler;

import java.util.List;

/**
 * One backend's queue at a moment: its slots and the waiting jobs in the order they would be sent.
 *
 * @param rankingAccuracy the live ranking accuracy, null while unknown
 */
public record QueueSnapshot(String backend, String policy, int slots, int busySlots, Double rankingAccuracy,
        List<Waiting> waiting) {

    /**
     * A waiting job.
     *
     * @param position 1 for the job that goes next
     * @param tenant whom it is served for ({@link JobTag#tenant}): {@code default} unless fair shares are on
     * @param waitedMillis time since it arrived (for a paused job, its runs included)
     * @param starved true when it has waited longer than the starvation timeout
     * @param level its level of attained service under {@code laps}; 1 otherwise
     * @param attainedSeconds the time it has held a slot: more than 0 only for a paused job
     * @param paused true when it ran, was paused, and waits to resume
     * @param expectedStartSeconds seconds from now until it is expected to get a slot, if the jobs ahead of
     *     it (running and waiting) take their expected service times and nothing overtakes it
     * @param expectedFinishSeconds seconds from now until it is expected to be done
     */
    public record Waiting(int position, String id, String routeKind, String tenant, double expectedTokens, double expectedSeconds,
            int priority, long waitedMillis, boolean starved, int level, double attainedSeconds, boolean paused,
            double expectedStartSeconds, double expectedFinishSeconds) {}
}
