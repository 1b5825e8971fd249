package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.ranker.ScoreCalibration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IsotonicCalibrationTest {

    @Test
    void poolsAdjacentViolators() {
        // (1, 10) (2, 30) (3, 20) (4, 40): the middle two violate the order and pool to 25 at score 2.5.
        ScoreCalibration calibration = IsotonicCalibration.fit(new double[] {3, 1, 4, 2}, new double[] {20, 10, 40, 30},
                new double[] {1, 1, 1, 1});
        assertEquals(List.of(1.0, 2.5, 4.0), calibration.scores());
        assertEquals(List.of(10.0, 25.0, 40.0), calibration.tokens());
        assertEquals(10.0, calibration.tokens(1.0), 1e-9);
        assertEquals(25.0, calibration.tokens(2.5), 1e-9);
        assertEquals(Math.sqrt(25.0 * 40.0), calibration.tokens(3.25), 1e-9); // halfway in log space
    }

    @Test
    void weightsAndEqualScoresArePooledTogether() {
        ScoreCalibration calibration = IsotonicCalibration.fit(new double[] {1, 1, 2}, new double[] {10, 40, 100},
                new double[] {3, 1, 1});
        assertEquals(List.of(1.0, 2.0), calibration.scores());
        assertEquals(List.of(17.5, 100.0), calibration.tokens());
    }

    @Test
    void fittedValuesComeInTheExamplesOwnOrder() {
        // Sorted by score: (1, 1) (2, 3) (2, 6) (3, 2) (4, 5); score 2 is one value, 4.5, which pools with (3, 2) to 11/3.
        double[] fitted = IsotonicCalibration.fitted(new double[] {4, 2, 1, 3, 2}, new double[] {5, 3, 1, 2, 6});
        double pooled = 11.0 / 3;
        assertArrayEquals(new double[] {5, pooled, 1, pooled, pooled}, fitted, 1e-12);
    }

    /** Whatever the data, the calibration never reverses or ties the ranker's order, inside or outside the fitted range. */
    @Test
    void theCalibrationIsStrictlyIncreasingEverywhere() {
        Random random = new Random(7);
        for (int trial = 0; trial < 20; trial++) {
            int n = 50 + random.nextInt(500);
            double[] scores = new double[n];
            double[] tokens = new double[n];
            double[] weights = new double[n];
            for (int i = 0; i < n; i++) {
                scores[i] = random.nextGaussian() * 2;
                tokens[i] = Math.max(1, Math.exp(5 + 0.8 * scores[i] + random.nextGaussian()));
                weights[i] = 0.5 + random.nextDouble();
            }
            ScoreCalibration calibration = IsotonicCalibration.fit(scores, tokens, weights);
            double previous = 0;
            for (double score = -15; score <= 15; score += 0.01) {
                double value = calibration.tokens(score);
                assertTrue(value > previous || value == ScoreCalibration.MAX_TOKENS,
                        "tokens(" + score + ") = " + value + " after " + previous);
                assertTrue(Double.isFinite(value) && value > 0 && value <= ScoreCalibration.MAX_TOKENS, "tokens " + value);
                previous = value;
            }
        }
    }

    @Test
    void scoresThatOrderNothingStillKeepTheirOrder() {
        ScoreCalibration calibration = IsotonicCalibration.fit(new double[] {1, 2, 3}, new double[] {300, 200, 100},
                new double[] {1, 1, 1});
        assertEquals(200.0, calibration.tokens(1), 1e-9);
        assertTrue(calibration.tokens(3) > calibration.tokens(2) && calibration.tokens(2) > calibration.tokens(1));
        assertTrue(calibration.tokens(3) < 200.01);
    }

    @Test
    void unusableInputIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> IsotonicCalibration.fit(new double[] {1, 1}, new double[] {5, 9}, new double[] {1, 1}));
        assertThrows(IllegalArgumentException.class,
                () -> IsotonicCalibration.fit(new double[] {1, Double.NaN}, new double[] {5, 9}, new double[] {1, 1}));
        assertThrows(IllegalArgumentException.class,
                () -> IsotonicCalibration.fit(new double[] {1, 2}, new double[] {0, 9}, new double[] {1, 1}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ScoreCalibration(List.of(1.0, 2.0), List.of(50.0, 40.0)));
        assertEquals("calibration: knot 1 (2.0, 40.0) after (1.0, 50.0) (expected: scores and tokens strictly increasing)",
                e.getMessage());
    }
}
