package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** The losses and the head's backward pass against central finite differences. */
class RankingLossesTest {

    private static final double STEP = 1e-6;

    @Test
    void marginRankingIsZeroOnceTheLongerLeadsByTheMargin() {
        double[] gradient = new double[2];
        assertEquals(0, RankingLosses.marginRanking(3.0, 1.5, 1, 1.0, gradient));
        assertEquals(0, gradient[0]);
        assertEquals(0, gradient[1]);
        assertEquals(1.5, RankingLosses.marginRanking(1.0, 0.5, -1, 1.0, gradient), 1e-12);
        assertEquals(1, gradient[0]);
        assertEquals(-1, gradient[1]);
        assertThrows(IllegalArgumentException.class, () -> RankingLosses.marginRanking(0, 0, 0, 1.0, gradient));
    }

    @Test
    void marginRankingGradientMatchesFiniteDifferences() {
        Random random = new Random(1);
        for (int trial = 0; trial < 100; trial++) {
            double[] scores = {random.nextGaussian() * 2, random.nextGaussian() * 2};
            int y = random.nextBoolean() ? 1 : -1;
            if (Math.abs(-y * (scores[0] - scores[1]) + 1.0) < 1e-3) {
                continue; // the kink, where no derivative exists
            }
            double[] gradient = new double[2];
            RankingLosses.marginRanking(scores[0], scores[1], y, 1.0, gradient);
            assertGradient(s -> RankingLosses.marginRanking(s[0], s[1], y, 1.0, new double[2]), scores, gradient, 1e-6);
        }
    }

    @Test
    void logLengthL1GradientMatchesFiniteDifferences() {
        Random random = new Random(2);
        for (int trial = 0; trial < 100; trial++) {
            int tokens = 1 + random.nextInt(3000);
            double[] score = {Math.log1p(tokens) + (random.nextBoolean() ? 1 : -1) * (0.01 + random.nextDouble())};
            double[] gradient = new double[1];
            RankingLosses.logLengthL1(score[0], tokens, gradient);
            assertGradient(s -> RankingLosses.logLengthL1(s[0], tokens, new double[1]), score, gradient, 1e-6);
        }
        assertEquals(Math.log1p(99) - 1, RankingLosses.logLengthL1(1, 99, new double[1]), 1e-12);
    }

    @Test
    void listMleGradientMatchesFiniteDifferences() {
        Random random = new Random(3);
        for (int n : new int[] {2, 3, 7, 32}) {
            for (int trial = 0; trial < 20; trial++) {
                double[] scores = new double[n];
                for (int i = 0; i < n; i++) {
                    scores[i] = random.nextGaussian() * 3;
                }
                double[] gradient = new double[n];
                RankingLosses.listMle(scores, gradient);
                assertGradient(s -> RankingLosses.listMle(s, new double[n]), scores, gradient, 1e-5);
            }
        }
    }

    @Test
    void listMleIsTheNegativeLogLikelihoodOfTheOrder() {
        // Two items: −log P(first ranked first) = log(e^a + e^b) − a.
        assertEquals(Math.log(Math.exp(2) + Math.exp(1)) - 2, RankingLosses.listMle(new double[] {2, 1}, new double[2]), 1e-12);
        // Scores far apart in the right order: the order is certain; huge scores do not overflow.
        assertEquals(0, RankingLosses.listMle(new double[] {3000, 2000, 1000}, new double[3]), 1e-9);
    }

    @Test
    void theHeadsBackwardPassMatchesFiniteDifferences() {
        Random random = new Random(4);
        RankingHead head = RankingHead.initialized(12, 5, random);
        for (int i = 0; i < head.parameters.length; i++) {
            head.parameters[i] += 0.1 * random.nextGaussian(); // biases off zero, so that units sit on both sides of the ReLU
        }
        float[] x = new float[12];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        double[] activations = new double[5];
        head.forward(x, activations);
        double[] gradient = new double[head.parameters.length];
        head.backward(x, activations, 0.7, gradient);
        for (int p = 0; p < head.parameters.length; p++) {
            double saved = head.parameters[p];
            head.parameters[p] = saved + STEP;
            double up = 0.7 * head.score(x);
            head.parameters[p] = saved - STEP;
            double down = 0.7 * head.score(x);
            head.parameters[p] = saved;
            assertEquals((up - down) / (2 * STEP), gradient[p], 1e-6, "parameter " + p);
        }
    }

    private static void assertGradient(ToDoubleFunction<double[]> loss, double[] at, double[] gradient, double tolerance) {
        for (int i = 0; i < at.length; i++) {
            double[] up = at.clone();
            double[] down = at.clone();
            up[i] += STEP;
            down[i] -= STEP;
            double numeric = (loss.applyAsDouble(up) - loss.applyAsDouble(down)) / (2 * STEP);
            assertEquals(numeric, gradient[i], tolerance, "d/d score " + i);
        }
    }
}
