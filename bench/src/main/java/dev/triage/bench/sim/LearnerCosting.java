package dev.triage.bench.sim;

import dev.triage.features.PromptFeatures;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.scheduler.JobCost;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The proxy's own {@link BackendLearner} as a simulation's costing: each waiting job is costed by what
 * the learner serves when the queue asks (the estimator's tokens through the learned calibration and,
 * where it serves, the ranking adaptation; the seconds by the learned service time), and the learner
 * learns from every completed job, each cost made before its own answer was seen (prequential). A frozen learner serves the estimator's tokens
 * and the configured service time, as {@code --online-learning false} does.
 */
final class LearnerCosting implements JobCosting {

    private final BackendLearner learner;
    private final List<PrequentialReplay.Answered> stream;
    private final PromptFeatures[] features;

    /** @param stream each request of the workload, by its id: the estimator's tokens and its prompt */
    LearnerCosting(BackendLearner learner, List<PrequentialReplay.Answered> stream) {
        this.learner = learner;
        this.stream = List.copyOf(stream);
        this.features = stream.stream().map(answered -> PromptFeatures.of(answered.prompt())).toArray(PromptFeatures[]::new);
    }

    @Override
    public JobCost cost(SimRequest request, int running) {
        PrequentialReplay.Answered answered = stream.get(request.id());
        return learner.cost(answered.frozenTokens(), features[request.id()], OptionalLong.empty(), OptionalInt.empty(),
                request.size().promptTokens(), running);
    }

    @Override
    public long version() {
        return learner.version();
    }

    @Override
    public void completed(CompletedRequest request, int running) {
        SimRequest job = request.request();
        learner.learn(new dev.triage.proxy.learning.CompletedRequest(stream.get(job.id()).frozenTokens(), OptionalInt.empty(),
                job.size().promptTokens(), job.size().outputTokens(), running, request.finishSeconds() - request.startSeconds(),
                OptionalLong.empty(), false, features[job.id()].get()));
    }
}
