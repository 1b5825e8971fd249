package dev.triage.model.evaluation;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.LengthClass;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scores an estimator on labeled test prompts and computes its {@link Figures}.
 *
 * <p>Each answering model's answers are a test set of their own, and Algorithm 1 compares short and
 * long answers <em>of the same model</em>: a Triage instance schedules for the one model behind it,
 * and a prompt-only predictor cannot (and need not) know that one model is wordier than another.
 * The pooled ranking accuracy sums correct pairs and pairs over those test sets.
 *
 * <pre>{@code
 * Figures figures = Evaluation.evaluate(estimator, corpus.prompts(PromptSplit.TEST));
 * }</pre>
 */
public final class Evaluation {

    private Evaluation() {}

    /**
     * The continuous score Algorithm 1 ranks by: P(long) where the estimate has one (the classifier,
     * the rule baselines), otherwise expected tokens (the prompt-length score, random order).
     */
    public static double rankingScore(Estimate estimate) {
        return Double.isNaN(estimate.longProbability()) ? estimate.expectedTokens() : estimate.longProbability();
    }

    public static Figures evaluate(JobEstimator<Prompt> estimator, List<LabeledPrompt> prompts) {
        List<Estimate> estimates = estimator.estimateAll(prompts.stream().map(LabeledPrompt::request).toList());
        return evaluate(prompts, (index, answer) -> estimates.get(index));
    }

    /**
     * What estimated each answer; null leaves the answer out. Most methods estimate per prompt, but
     * a reference such as {@link PromptCeiling} looks at the other answers to the same prompt.
     */
    @FunctionalInterface
    public interface AnswerEstimates {
        Estimate of(int promptIndex, PromptAnswer answer);
    }

    /** The figures of per-answer estimates over the prompts' answers. */
    public static Figures evaluate(List<LabeledPrompt> prompts, AnswerEstimates estimates) {
        Map<String, TestSet> byModel = new LinkedHashMap<>();
        int scoredPrompts = 0;
        int answers = 0;
        int shortAnswers = 0;
        int longAnswers = 0;
        int rightClass = 0;
        for (int i = 0; i < prompts.size(); i++) {
            boolean scored = false;
            for (PromptAnswer answer : prompts.get(i).answers()) {
                Estimate estimate = estimates.of(i, answer);
                if (estimate == null) {
                    continue;
                }
                scored = true;
                LengthClass truth = LengthClass.of(answer.answerTokens());
                answers++;
                shortAnswers += truth == LengthClass.SHORT ? 1 : 0;
                longAnswers += truth == LengthClass.LONG ? 1 : 0;
                rightClass += truth == estimate.lengthClass() ? 1 : 0;
                byModel.computeIfAbsent(answer.modelKey(), k -> new TestSet())
                        .add(estimate, answer.answerTokens());
            }
            scoredPrompts += scored ? 1 : 0;
        }
        RankingMetrics.PairCount byScore = RankingMetrics.PairCount.NONE;
        RankingMetrics.PairCount byTokens = RankingMetrics.PairCount.NONE;
        double tauSum = 0;
        int tauWeight = 0;
        for (TestSet set : byModel.values()) {
            double[] truth = set.array(set.trueTokens);
            double[] expected = set.array(set.expectedTokens);
            byScore = byScore.plus(RankingMetrics.rankingPairs(set.array(set.scores), truth));
            byTokens = byTokens.plus(RankingMetrics.rankingPairs(expected, truth));
            double tau = RankingMetrics.kendallTauB(expected, truth);
            if (!Double.isNaN(tau)) {
                tauSum += tau * truth.length;
                tauWeight += truth.length;
            }
        }
        return new Figures(scoredPrompts, answers, shortAnswers, longAnswers, byScore.pairs(),
                Figures.orNull(byScore.accuracy()), Figures.orNull(byTokens.accuracy()),
                Figures.orNull(answers == 0 ? Double.NaN : (double) rightClass / answers),
                Figures.orNull(tauWeight == 0 ? Double.NaN : tauSum / tauWeight));
    }

    /** One answering model's answers: the estimator's outputs beside the true lengths. */
    private static final class TestSet {
        final List<Double> scores = new ArrayList<>();
        final List<Double> expectedTokens = new ArrayList<>();
        final List<Double> trueTokens = new ArrayList<>();

        void add(Estimate estimate, int answerTokens) {
            scores.add(rankingScore(estimate));
            expectedTokens.add(estimate.expectedTokens());
            trueTokens.add((double) answerTokens);
        }

        double[] array(List<Double> values) {
            return values.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }
}
