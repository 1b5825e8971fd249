package dev.triage.model.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RankingMetricsTest {

    @Test
    void algorithmOneCountsShortLongPairsWithTheLongOneStrictlyHigher() {
        // Short: 10 (0.1), 50 (0.5); long: 900 (0.6), 1200 (0.4); the medium 400 takes no part.
        double[] scores = {0.1, 0.5, 0.6, 0.4, 0.99};
        double[] tokens = {10, 50, 900, 1200, 400};
        RankingMetrics.PairCount pairs = RankingMetrics.rankingPairs(scores, tokens);
        // (10,900) yes, (50,900) yes, (10,1200) yes, (50,1200) no.
        assertEquals(new RankingMetrics.PairCount(3, 4), pairs);
        assertEquals(0.75, RankingMetrics.rankingAccuracy(scores, tokens));
    }

    @Test
    void tiesAreNotCorrect() {
        assertEquals(0.0, RankingMetrics.rankingAccuracy(new double[] {0.5, 0.5}, new double[] {100, 900}));
        assertEquals(0.5, RankingMetrics.rankingAccuracy(new double[] {0.5, 0.5, 0.2}, new double[] {900, 100, 100}));
    }

    @Test
    void theClassBoundsAreLengthClasses() {
        // 199 is short, 200 medium, 800 long.
        assertEquals(new RankingMetrics.PairCount(1, 1), RankingMetrics.rankingPairs(new double[] {0, 1, 2}, new double[] {199, 800, 200}));
    }

    @Test
    void noPairsIsNaN() {
        assertTrue(Double.isNaN(RankingMetrics.rankingAccuracy(new double[] {1, 2}, new double[] {10, 20})));
        assertTrue(Double.isNaN(RankingMetrics.rankingAccuracy(new double[0], new double[0])));
    }

    @Test
    void fastCountingAgreesWithTheLiteralDoubleLoop() {
        Random random = new Random(7);
        for (int round = 0; round < 20; round++) {
            int n = 1 + random.nextInt(300);
            double[] scores = new double[n];
            double[] tokens = new double[n];
            for (int i = 0; i < n; i++) {
                scores[i] = random.nextInt(20) / 20.0;
                tokens[i] = random.nextInt(1600);
            }
            long correct = 0;
            long total = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (tokens[i] < 200 && tokens[j] >= 800) {
                        total++;
                        correct += scores[j] > scores[i] ? 1 : 0;
                    }
                }
            }
            assertEquals(new RankingMetrics.PairCount(correct, total), RankingMetrics.rankingPairs(scores, tokens));
        }
    }

    @Test
    void kendallTauB() {
        assertEquals(1.0, RankingMetrics.kendallTauB(new double[] {1, 2, 3}, new double[] {10, 20, 30}), 1e-12);
        assertEquals(-1.0, RankingMetrics.kendallTauB(new double[] {1, 2, 3}, new double[] {30, 20, 10}), 1e-12);
        // With ties on both sides (the example of scipy.stats.kendalltau's documentation).
        assertEquals(-0.47140452079103173,
                RankingMetrics.kendallTauB(new double[] {12, 2, 1, 12, 2}, new double[] {1, 4, 7, 1, 0}), 1e-12);
        assertTrue(Double.isNaN(RankingMetrics.kendallTauB(new double[] {1, 1, 1}, new double[] {1, 2, 3})));
    }

    @Test
    void arraysMustMatch() {
        assertThrows(IllegalArgumentException.class, () -> RankingMetrics.kendallTauB(new double[1], new double[2]));
        assertThrows(IllegalArgumentException.class, () -> RankingMetrics.rankingPairs(new double[1], new double[2]));
    }
}
