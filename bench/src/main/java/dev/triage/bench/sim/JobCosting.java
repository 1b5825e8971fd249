package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.JobCost;

/**
 * What a simulation's scheduler is told each job will cost, and what it learns from each completed
 * one: the workload's own estimates, fixed on arrival ({@link #estimates}), or the proxy's backend
 * learner, which moves as answers complete ({@link LearnerCosting}).
 */
interface JobCosting {

    /** The cost of a job by the models as they are now, with {@code running} jobs decoding together. */
    JobCost cost(SimRequest request, int running);

    /** Moves whenever {@link #cost} may give another answer: the scheduler then costs every waiting job again. */
    long version();

    /** A job completed, with {@code running} jobs decoding together at its end. */
    void completed(CompletedRequest request, int running);

    /** The workload's estimates as the variant sees them, told once on arrival. */
    static JobCosting estimates(PolicyVariant variant) {
        return new JobCosting() {
            @Override
            public JobCost cost(SimRequest request, int running) {
                return Simulation.cost(request, variant, 0);
            }

            @Override
            public long version() {
                return 0;
            }

            @Override
            public void completed(CompletedRequest request, int running) {}
        };
    }
}
