package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RemainingLengthTest {

    @Test
    void theNormalDistributionMatchesKnownValues() {
        assertEquals(0.5, RemainingLength.normalCdf(0), 1e-7);
        assertEquals(0.8413447461, RemainingLength.normalCdf(1), 1e-7);
        assertEquals(0.0227501319, RemainingLength.normalCdf(-2), 1e-8);
        assertEquals(2.866515719e-7, RemainingLength.normalCdf(-5), 1e-13);
    }

    @Test
    void beforeAnyTokenTheExpectationIsTheLogNormalMean() {
        RemainingLength remaining = new RemainingLength(100);
        // Prior: ratio median 1, σ = 1, so E[L] = e · exp(σ² / 2).
        assertEquals(200 * Math.exp(0.5), remaining.expectedTotal(200, 0), 1e-9);
        assertEquals(200, remaining.expectedRemaining(200, 0), 1e-9, "before the first token, the estimate as it is");
    }

    @Test
    void theExpectedTotalMatchesAMonteCarloConditionalMean() {
        RemainingLength remaining = new RemainingLength(1000);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1000; i++) {
            remaining.learn(100, 100 * Math.exp(0.3 + 0.6 * random.nextGaussian()));
        }
        double mu = remaining.mu();
        double sigma = remaining.sigma();
        assertEquals(0.3, mu, 0.06);
        assertEquals(0.6, sigma, 0.06);
        for (long produced : new long[] {50, 150, 400}) {
            double sum = 0;
            int count = 0;
            for (int i = 0; i < 2_000_000; i++) {
                double length = 100 * Math.exp(mu + sigma * random.nextGaussian());
                if (length > produced) {
                    sum += length;
                    count++;
                }
            }
            assertEquals(sum / count, remaining.expectedTotal(100, produced), sum / count * 0.01, "produced " + produced);
        }
    }

    @Test
    void anAnswerThatOutrunsItsEstimateIsExpectedToGoOn() {
        RemainingLength remaining = new RemainingLength(100);
        double previous = 0;
        for (long produced = 10; produced <= 100_000; produced *= 3) {
            double total = remaining.expectedTotal(100, produced);
            assertTrue(total > produced, "E[L | L > n] > n at n = " + produced);
            assertTrue(total > previous, "grows with n at n = " + produced);
            assertTrue(remaining.expectedRemaining(100, produced) >= 1);
            previous = total;
        }
    }

    @Test
    void theTailApproximationJoinsTheExactFormula() {
        RemainingLength remaining = new RemainingLength(100);
        // a = (ln e − ln n) / σ crosses −30 near n = e · exp(30).
        double atBoundary = 100 * Math.exp(30);
        double below = remaining.expectedTotal(100, (long) (atBoundary * 0.999)) / (atBoundary * 0.999);
        double above = remaining.expectedTotal(100, (long) (atBoundary * 1.001)) / (atBoundary * 1.001);
        assertEquals(below, above, 1e-3);
    }

    @Test
    void theLearnedRatioReplacesThePriorAndForgetsOldRequests() {
        RemainingLength remaining = new RemainingLength(50);
        for (int i = 0; i < RemainingLength.MIN_SAMPLES - 1; i++) {
            remaining.learn(100, 400);
        }
        assertEquals(0, remaining.mu(), 1e-12, "prior until enough requests completed");
        remaining.learn(100, 400);
        assertEquals(Math.log(4), remaining.mu(), 1e-9);
        assertEquals(RemainingLength.MIN_SIGMA, remaining.sigma(), 1e-12);
        for (int i = 0; i < 50; i++) {
            remaining.learn(100, 50);
        }
        assertEquals(Math.log(0.5), remaining.mu(), 1e-9, "the window holds only the last 50");
    }
}
