package dev.triage.bench.sim;

import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.scheduler.JobCost;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The proxy's own {@link BackendLearner} as a simulation's costing: each waiting job is costed by what
 * the learner serves when the queue asks (the estimator's tokens through the learned calibration, the
 * seconds by the learned service time), and the learner learns from every completed job, each cost
 * made before its own answer was seen (prequential). A frozen learner serves the estimator's tokens
 * and the configured service time, as {@code --online-learning false} does.
 */
final class LearnerCosting implements JobCosting {

    private final BackendLearner learner;
    private final double[] frozenTokens;

    /** @param frozenTokens the estimator's tokens for each request of the workload, by its id */
    LearnerCosting(BackendLearner learner, double[] frozenTokens) {
        this.learner = learner;
        this.frozenTokens = frozenTokens.clone();
    }

    @Override
    public JobCost cost(SimRequest request, int running) {
        return learner.cost(frozenTokens[request.id()], Optional.empty(), OptionalLong.empty(), OptionalInt.empty(), request.size().promptTokens(), running);
    }

    @Override
    public long version() {
        return learner.version();
    }

    @Override
    public void completed(CompletedRequest request, int running) {
        SimRequest job = request.request();
        learner.learn(new dev.triage.proxy.learning.CompletedRequest(frozenTokens[job.id()], OptionalInt.empty(), job.size().promptTokens(),
                job.size().outputTokens(), running, request.finishSeconds() - request.startSeconds()));
    }
}
