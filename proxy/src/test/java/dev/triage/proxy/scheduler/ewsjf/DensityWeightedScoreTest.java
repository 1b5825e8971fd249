package dev.triage.proxy.scheduler.ewsjf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DensityWeightedScoreTest {

    private static final Theta THETA = new Theta(0.2, 0.1, -0.01, 0.3, 3);

    @Test
    void theScoreIsThePapersFormula() {
        // qf = 2 / 101; w_urg(500) = 0.2 × 0.5 + 0.1 = 0.2; w_fair(500) = -0.01 × 0.5 + 0.3 = 0.295;
        // cs = 6 s / 0.3 s = 20.
        double expected = 2.0 / 101 * (1 + 0.2 * 20 + 0.295 * Math.log(101));
        assertEquals(expected, DensityWeightedScore.score(2, 100, 0.3, 6, 500, THETA), 1e-12);
    }

    @Test
    void atEqualWaitsTheShorterQueueScoresHigher() {
        double shortScore = DensityWeightedScore.score(3, 50, 0.11, 2, 60, THETA);
        double longScore = DensityWeightedScore.score(1, 4000, 0.9, 2, 3800, THETA);
        assertTrue(shortScore > 10 * longScore, shortScore + " vs " + longScore);
    }

    @Test
    void theScoreOfAWaitingJobGrowsWithoutBoundUntilItPassesAnyFreshJob() {
        // The starvation-freedom theorem: even with the smallest urgency weight the meta-policy allows,
        // a long job's score rises linearly with its wait and overtakes a short job that just arrived.
        Theta weakest = new Theta(-0.5, Theta.MIN_WEIGHT, 0, 0, 3);
        double fresh = DensityWeightedScore.score(5, 10, 0.1, 0, 10, weakest);
        double previous = DensityWeightedScore.score(1, 8000, 2, 0, 8000, weakest);
        double wait = 1;
        for (; wait < 1e12; wait *= 2) {
            double score = DensityWeightedScore.score(1, 8000, 2, wait, 8000, weakest);
            assertTrue(score > previous, "strictly rising with the wait");
            previous = score;
            if (score > fresh) {
                break;
            }
        }
        assertTrue(wait < 1e12, "overtook the fresh job after " + wait + " s");
    }

    @Test
    void theMetaPolicyWeightsFollowTheQueueMeanAndStayPositive() {
        assertEquals(0.1, THETA.urgencyWeight(0), 1e-12);
        assertEquals(0.3, THETA.urgencyWeight(1000), 1e-12);
        assertEquals(Theta.MIN_WEIGHT, new Theta(-0.5, 0.1, 0, 0, 3).urgencyWeight(10_000), "floored, never 0");
        assertEquals(0, new Theta(0, 0.1, -0.5, 0.1, 3).fairnessWeight(10_000));
    }
}
