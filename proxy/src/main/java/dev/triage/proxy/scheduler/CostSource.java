package dev.triage.proxy.scheduler;

/**
 * Where a waiting job's {@link JobCost} comes from: models that may change while it waits (a service
 * time and a calibration learned from completed requests). The queue computes the cost again
 * whenever the version has moved, so that every waiting job is ordered by the same models; a job
 * costed by an older model would otherwise overtake, or fall behind, one costed by a newer.
 */
public interface CostSource {

    /** The cost by the models as they are now; called on the queue's thread, so thread-safe. */
    JobCost cost();

    /** Moves whenever {@link #cost} may give another answer. */
    long version();

    /** A cost that never changes. */
    static CostSource fixed(JobCost cost) {
        return new CostSource() {
            @Override
            public JobCost cost() {
                return cost;
            }

            @Override
            public long version() {
                return 0;
            }
        };
    }
}
