package dev.triage.model.ranker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ScoreCalibrationTest {

    private static final ScoreCalibration CALIBRATION = new ScoreCalibration(List.of(-1.0, 0.0, 0.5, 2.0),
            List.of(40.0, 180.0, 450.0, 1200.0));

    /** N distinct scores, inside, between and beyond the knots, give N distinct estimates in the same order. */
    @Test
    void distinctScoresGiveDistinctTokensInTheSameOrder() {
        Random random = new Random(7);
        float[] scores = new float[5_000];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = (float) Math.max(-6, Math.min(6, random.nextGaussian() * 2));
        }
        scores[0] = -1f;
        scores[1] = Math.nextUp(-1f);
        scores[2] = 0.5f;
        scores[3] = Math.nextDown(0.5f);
        float[] sorted = scores.clone();
        Arrays.sort(sorted);
        double previousTokens = 0;
        float previousScore = Float.NEGATIVE_INFINITY;
        for (float score : sorted) {
            if (score == previousScore) {
                continue;
            }
            double tokens = CALIBRATION.tokens(score);
            assertTrue(tokens > previousTokens, "score " + score + " gives " + tokens + " after " + previousTokens);
            previousTokens = tokens;
            previousScore = score;
        }
    }

    @Test
    void knotsAreMetAndTheLineBetweenIsLinearInLogTokens() {
        assertEquals(180.0, CALIBRATION.tokens(0.0), 1e-9);
        assertEquals(Math.sqrt(180.0 * 450.0), CALIBRATION.tokens(0.25), 1e-9);
        assertTrue(CALIBRATION.tokens(-30) > 0);
        assertEquals(ScoreCalibration.MAX_TOKENS, CALIBRATION.tokens(1e6));
    }

    @Test
    void knotsThatAreNotStrictlyIncreasingAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ScoreCalibration(List.of(0.0, 1.0), List.of(100.0, 100.0)));
        assertTrue(e.getMessage().contains("strictly increasing"), e.getMessage());
    }
}
