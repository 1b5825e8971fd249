package dev.triage.model.evaluation;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.LengthClass;
import java.util.SplittableRandom;

/**
 * The FCFS baseline as an estimator: arrival order knows nothing about length, which is a score
 * drawn at random for each prompt (seeded by the prompt, so an evaluation is repeatable), and a
 * class drawn uniformly with it. Its ranking accuracy is 50% up to sampling noise.
 */
public final class RandomOrder implements JobEstimator<Prompt> {

    private static final long SEED = 42;
    private static final double MAX_TOKENS = 3.0 * LengthClass.LONG_FROM / 2;

    @Override
    public String name() {
        return "random";
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        double draw = new SplittableRandom(SEED ^ prompt.text().hashCode()).nextDouble();
        return new Estimate(draw * MAX_TOKENS, LengthClass.values()[(int) (draw * 3)], Double.NaN);
    }
}
