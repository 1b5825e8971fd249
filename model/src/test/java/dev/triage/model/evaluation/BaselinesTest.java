package dev.triage.model.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.LengthClass;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselinesTest {

    private static final double[] MEANS = {80, 400, 1100};

    private static LabeledPrompt prompt(String text, int tokens) {
        return new LabeledPrompt(text, PromptSource.SHAREGPT, PromptSplit.TRAIN,
                List.of(new PromptAnswer(text, tokens, PromptSource.SHAREGPT, "m")));
    }

    @Test
    void thePromptLengthRuleFitsTheThresholdThatSeparatesTrainingPairs() {
        List<LabeledPrompt> train = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            train.add(prompt("short question " + i, 50));            // 4 tokens
            train.add(prompt("x".repeat(400) + i, 1000));           // 101 tokens
        }
        assertEquals(101, PromptLengthRule.bestThreshold(train));
        TwoClassRule rule = PromptLengthRule.fit(train, MEANS);
        Estimate longPrompt = rule.estimate(new Prompt("y".repeat(500)));
        assertEquals(new Estimate(1100, LengthClass.LONG, 1), longPrompt);
        assertEquals(new Estimate(80, LengthClass.SHORT, 0), rule.estimate(new Prompt("hi")));
    }

    @Test
    void theKeywordHeuristicCallsCodeRequestsLong() {
        TwoClassRule rule = TwoClassRule.keywordHeuristic(MEANS);
        assertEquals(LengthClass.LONG, rule.estimate(new Prompt("Write a Python function")).lengthClass());
        assertEquals(LengthClass.SHORT, rule.estimate(new Prompt("Write a poem")).lengthClass());
    }

    @Test
    void randomOrderIsRepeatableAndNearFiftyPercent() {
        RandomOrder random = new RandomOrder();
        assertEquals(random.estimate(new Prompt("same")), random.estimate(new Prompt("same")));
        int n = 2000;
        double[] scores = new double[n];
        double[] tokens = new double[n];
        for (int i = 0; i < n; i++) {
            scores[i] = Evaluation.rankingScore(random.estimate(new Prompt("prompt " + i)));
            tokens[i] = i % 2 == 0 ? 50 : 900;
        }
        double accuracy = RankingMetrics.rankingAccuracy(scores, tokens);
        assertTrue(Math.abs(accuracy - 0.5) < 0.05, "random ranking accuracy " + accuracy);
    }
}
