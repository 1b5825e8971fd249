package dev.triage.model.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.LengthClass;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EvaluationTest {

    /** A scripted estimator: the test decides what each prompt is scored. */
    private static JobEstimator<Prompt> scripted(Map<String, Estimate> estimates) {
        return new JobEstimator<>() {
            @Override
            public String name() {
                return "scripted";
            }

            @Override
            public Estimate estimate(Prompt prompt) {
                return estimates.get(prompt.text());
            }
        };
    }

    private static LabeledPrompt prompt(String text, Object... modelAndTokens) {
        List<PromptAnswer> answers = new java.util.ArrayList<>();
        for (int i = 0; i < modelAndTokens.length; i += 2) {
            answers.add(new PromptAnswer(text, (Integer) modelAndTokens[i + 1], PromptSource.ALPACA_EVAL, (String) modelAndTokens[i]));
        }
        return new LabeledPrompt(text, PromptSource.ALPACA_EVAL, PromptSplit.TEST, answers);
    }

    @Test
    void pairsAreComparedWithinEachAnsweringModel() {
        // Model "terse" answers everything short, model "wordy" everything long: no pair within a model.
        List<LabeledPrompt> prompts = List.of(prompt("a", "terse", 50, "wordy", 900), prompt("b", "terse", 60, "wordy", 1000));
        Figures figures = Evaluation.evaluate(scripted(Map.of("a", Estimate.ofTokens(100), "b", Estimate.ofTokens(900))), prompts);
        assertEquals(0, figures.pairs());
        assertNull(figures.rankingAccuracy());
        assertEquals(4, figures.answers());
        assertEquals(2, figures.shortAnswers());
        assertEquals(2, figures.longAnswers());
    }

    @Test
    void figuresPoolPairsAndUseTheLongProbabilityWhenThereIsOne() {
        List<LabeledPrompt> prompts = List.of(
                prompt("short", "m1", 50, "m2", 100),
                prompt("long", "m1", 900, "m2", 150),
                prompt("other", "m1", 100, "m2", 1200));
        // P(long) ranks "long" over "short" and "other"; expected tokens rank "other" highest.
        JobEstimator<Prompt> estimator = scripted(Map.of(
                "short", new Estimate(100, LengthClass.SHORT, 0.1),
                "long", new Estimate(500, LengthClass.LONG, 0.9),
                "other", new Estimate(1000, LengthClass.LONG, 0.2)));
        Figures figures = Evaluation.evaluate(estimator, prompts);
        // m1: shorts {short, other}, long {long}: 2 of 2 by P(long). m2: shorts {short, long}, long {other}: 1 of 2.
        assertEquals(4, figures.pairs());
        assertEquals(0.75, figures.rankingAccuracy());
        // By expected tokens: m1: long(500) > short(100) yes, > other(1000) no; m2: other(1000) > both: 2 of 2.
        assertEquals(0.75, figures.rankingAccuracyByExpectedTokens());
        // Classes: short/short right (2), long m1 right, long m2 (150) wrong, other m1 (100) wrong, other m2 right.
        assertEquals(4 / 6.0, figures.classAccuracy(), 1e-12);
        assertEquals(3, figures.prompts());
    }

    @Test
    void theRankingScoreFallsBackToExpectedTokens() {
        assertEquals(0.3, Evaluation.rankingScore(new Estimate(10, LengthClass.SHORT, 0.3)));
        assertEquals(250, Evaluation.rankingScore(Estimate.ofTokens(250)));
    }

    @Test
    void theCeilingScoresAnAnswerByTheOtherModelsAnswers() {
        List<LabeledPrompt> prompts = List.of(
                prompt("short", "m1", 50, "m2", 60, "m3", 70),
                prompt("long", "m1", 900, "m2", 1000, "m3", 1100),
                prompt("alone", "m1", 10));
        Figures ceiling = PromptCeiling.figures(prompts);
        assertEquals(1.0, ceiling.rankingAccuracy());
        assertEquals(6, ceiling.answers(), "the prompt no other model answered is left out");
        assertEquals(2, ceiling.prompts());
    }
}
