package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EstimateModelTest {

    @Test
    void exactIsTheTruth() {
        List<JobSize> jobs = List.of(JobSize.of("a", 1.5), JobSize.of("b", 7));
        assertArrayEquals(new double[] {1.5, 7}, new EstimateModel.Exact().expectedSeconds(jobs, new SplittableRandom(1)));
    }

    @Test
    void logNormalNoiseIsRightOnTheMedian() {
        List<JobSize> jobs = new ArrayList<>();
        for (int i = 0; i < 20_001; i++) {
            jobs.add(JobSize.of("job", 4));
        }
        double[] estimates = new EstimateModel.LogNormalNoise(0.5).expectedSeconds(jobs, new SplittableRandom(3));
        Arrays.sort(estimates);
        assertEquals(4, estimates[estimates.length / 2], 0.1);
        assertTrue(estimates[0] > 0);
    }

    @Test
    void aTransplantedEstimateBorrowsTheErrorOfAnswersOfTheSameLength() {
        ServiceTimeModel serviceTime = new ServiceTimeModel(0.1, 0.02);
        List<EstimateModel.Measured> measured = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            measured.add(new EstimateModel.Measured(100, 10 + i));     // short answers, estimated ~8x too long
            measured.add(new EstimateModel.Measured(500, 1000 + i));   // long answers, estimated half as long
        }
        EstimateModel.Transplanted transplanted = new EstimateModel.Transplanted("test", measured, serviceTime);
        List<JobSize> jobs = List.of(JobSize.of("short", serviceTime.seconds(12)), JobSize.of("long", serviceTime.seconds(900)));
        SplittableRandom random = new SplittableRandom(5);
        for (int draw = 0; draw < 50; draw++) {
            double[] seconds = transplanted.expectedSeconds(jobs, random);
            double shortTokens = (seconds[0] - 0.1) / 0.02;
            double longTokens = (seconds[1] - 0.1) / 0.02;
            assertTrue(shortTokens > 12 * 100 / 19.0 - 1e-6 && shortTokens < 12 * 10 + 1e-6, "short: " + shortTokens);
            assertTrue(longTokens > 900 * 500 / 1009.0 - 1e-6 && longTokens < 900 * 0.5 + 1e-6, "long: " + longTokens);
        }
        assertEquals("test", transplanted.label());
        assertThrows(IllegalArgumentException.class, () -> new EstimateModel.Transplanted("few", measured.subList(0, 9), serviceTime));
    }

    @Test
    void thePromptCeilingEstimatesAJobByTheOtherAnswersToItsPrompt() {
        ServiceTimeModel serviceTime = new ServiceTimeModel(0.1, 0.02);
        String essay = "Write an essay on tides.";
        LabeledPrompt labeled = new LabeledPrompt(essay, PromptSource.ALPACA_EVAL, PromptSplit.of(essay), List.of(
                new PromptAnswer(essay, 10, PromptSource.ALPACA_EVAL, "terse"),
                new PromptAnswer(essay, 100, PromptSource.ALPACA_EVAL, "plain"),
                new PromptAnswer(essay, 1000, PromptSource.ALPACA_EVAL, "wordy")));
        EstimateModel ceiling = new EstimateModel.OtherAnswers(List.of(labeled), serviceTime);
        List<JobSize> jobs = List.of(JobSize.ofTokens("short", 6, 10, serviceTime, essay),
                JobSize.ofTokens("long", 6, 1000, serviceTime, "  Write an essay on tides. "));
        assertArrayEquals(new double[] {serviceTime.seconds(550), serviceTime.seconds(55)},
                ceiling.expectedSeconds(jobs, new SplittableRandom(1)), 1e-9);
        assertEquals("prompt-ceiling", ceiling.label());
        // A job whose answer is not among the prompt's, or whose prompt is not in the data, has no reference.
        for (JobSize unknown : List.of(JobSize.ofTokens("short", 6, 11, serviceTime, essay),
                JobSize.ofTokens("short", 3, 10, serviceTime, "Name a tide."), JobSize.of("short", 1))) {
            assertThrows(IllegalArgumentException.class, () -> ceiling.expectedSeconds(List.of(unknown), new SplittableRandom(1)));
        }
    }

    @Test
    void aNoiselessClassifierGivesEachClassOneEstimate() {
        List<JobSize> jobs = List.of(JobSize.of("short", 2), JobSize.of("long", 9), JobSize.of("medium", 5));
        double[] estimates = new EstimateModel.ClassifierNoise(0, 3.5, 8.9).expectedSeconds(jobs, new SplittableRandom(1));
        assertEquals(3.5 + 0.1 * 5.4, estimates[0], 1e-9);
        assertEquals(3.5 + 0.9 * 5.4, estimates[1], 1e-9);
        assertEquals(estimates[0], estimates[2], 1e-9, "anything not long counts as short");
    }

    @Test
    void aRealEstimatorReadsThePromptsAndTheServiceTimeModelTurnsTokensIntoSeconds() {
        ServiceTimeModel serviceTime = new ServiceTimeModel(0.5, 0.01);
        List<JobSize> jobs = List.of(new JobSize("short", 1, "hi", 1, 0, 1), new JobSize("long", 9, "x".repeat(4000), 1000, 0, 9));
        double[] estimates = new EstimateModel.FromEstimator(new BaselineEstimator(), serviceTime)
                .expectedSeconds(jobs, new SplittableRandom(1));
        // Baseline: 128 + 2 x prompt tokens; "hi" is 1 token, 4,000 characters are 1,000.
        assertEquals(serviceTime.seconds(130), estimates[0], 1e-9);
        assertEquals(serviceTime.seconds(2128), estimates[1], 1e-9);
    }

    @Test
    void aRealEstimatorRefusesSizesWithoutPrompts() {
        var e = assertThrows(IllegalArgumentException.class, () -> new EstimateModel.FromEstimator(new BaselineEstimator(),
                new ServiceTimeModel(0.1, 0.02)).expectedSeconds(List.of(JobSize.of("short", 1)), new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("needs prompts"), e.getMessage());
    }
}
