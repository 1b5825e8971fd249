package dev.triage.bench.load;

import dev.triage.bench.replay.AnswerBook;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;

/**
 * An estimator that knows the answers: it reports each workload prompt's recorded length, the one
 * the replay backend will generate. Runs with it measure oracle SJF through the real proxy. It takes
 * the place of Triage's chat estimator only: transcriptions keep Triage's duration estimator, so an
 * oracle run still sizes audio by its duration.
 */
final class WorkloadOracle implements JobEstimator<Prompt> {

    private final AnswerBook answers;

    WorkloadOracle(AnswerBook answers) {
        this.answers = answers;
    }

    @Override
    public String name() {
        return "oracle";
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        int tokens = answers.answerTokens(prompt.text())
                .orElseThrow(() -> new IllegalArgumentException("a prompt the workload does not know"));
        return Estimate.ofTokens(tokens);
    }
}
