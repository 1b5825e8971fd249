package dev.triage.model.evaluation;

import dev.triage.features.LexicalFeatures;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.LengthClass;
import java.util.function.Predicate;

/**
 * A rule baseline of Clairvoyant's Table 7 that calls each prompt short or long: P(long) is 0 or
 * 1, and the expected tokens are the training data's mean short or long answer. Built by
 * {@link PromptLengthRule#fit} and {@link #keywordHeuristic}.
 */
public final class TwoClassRule implements JobEstimator<Prompt> {

    private final String name;
    private final Predicate<float[]> isLong;
    private final double shortTokens;
    private final double longTokens;

    TwoClassRule(String name, Predicate<float[]> isLong, double[] meanAnswerTokens) {
        this.name = name;
        this.isLong = isLong;
        this.shortTokens = meanAnswerTokens[LengthClass.SHORT.ordinal()];
        this.longTokens = meanAnswerTokens[LengthClass.LONG.ordinal()];
    }

    /**
     * The keyword heuristic: long when the prompt has a code keyword ({@link LexicalFeatures#CODE_KEYWORDS}),
     * short otherwise — the intuition that code requests draw long answers, which Clairvoyant found
     * to be worse than random on chat data.
     */
    public static TwoClassRule keywordHeuristic(double[] meanAnswerTokens) {
        return new TwoClassRule("keyword heuristic", features -> features[LexicalFeatures.HAS_CODE_KEYWORD] == 1,
                meanAnswerTokens);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        return isLong.test(LexicalFeatures.of(prompt))
                ? new Estimate(longTokens, LengthClass.LONG, 1)
                : new Estimate(shortTokens, LengthClass.SHORT, 0);
    }
}
