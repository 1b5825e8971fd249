package dev.triage.proxy.scheduler.ewsjf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MetaOptimizerTest {

    /** Where the synthetic reward peaks, in the unit cube of Θ. */
    private static final double[] OPTIMUM = {0.7, 0.2, 0.4, 0.8, 0.3};
    private static final int TRIALS = 20;

    /** A known reward: minus the squared distance to the optimum, with a little noise. */
    private static double reward(Theta theta, SplittableRandom noise) {
        double[] unit = theta.toUnit();
        double squared = 0;
        for (int d = 0; d < unit.length; d++) {
            squared += (unit[d] - OPTIMUM[d]) * (unit[d] - OPTIMUM[d]);
        }
        return -squared + 0.01 * (noise.nextDouble() - 0.5);
    }

    /** The best reward found in {@link #TRIALS} trials, starting from the default parameters. */
    private static double bestAfterTrials(long seed, boolean model) {
        MetaOptimizer optimizer = new MetaOptimizer(seed, model ? 3 : TRIALS + 1, TRIALS + 2);
        SplittableRandom noise = new SplittableRandom(seed + 100);
        Theta theta = Theta.DEFAULT;
        double best = Double.NEGATIVE_INFINITY;
        for (int trial = 0; trial < TRIALS; trial++) {
            double reward = reward(theta, noise);
            best = Math.max(best, reward);
            optimizer.observe(theta, reward);
            theta = optimizer.propose();
        }
        return best;
    }

    @Test
    void itClimbsAKnownRewardFasterThanRandomSearch() {
        double modelled = 0;
        double random = 0;
        for (long seed = 0; seed < 5; seed++) {
            double best = bestAfterTrials(seed, true);
            assertTrue(best > -0.05, "seed " + seed + ": best reward " + best + " after " + TRIALS + " trials");
            modelled += best;
            random += bestAfterTrials(seed, false);
        }
        assertTrue(modelled / 5 > random / 5 + 0.1,
                "mean best reward " + modelled / 5 + " with the Gaussian process, " + random / 5 + " at random");
    }

    @Test
    void theSameTrialsGiveTheSameProposals() {
        assertEquals(bestAfterTrials(3, true), bestAfterTrials(3, true));
    }

    @Test
    void itRemembersTheBestParametersAndIgnoresRewardsThatAreNotNumbers() {
        MetaOptimizer optimizer = new MetaOptimizer(0, 1, 5);
        Theta good = new Theta(0.1, 0.5, 0, 0.2, 4);
        optimizer.observe(Theta.DEFAULT, -1);
        optimizer.observe(good, 2);
        optimizer.observe(new Theta(0, 0.9, 0, 0.9, 9), Double.NaN);
        assertEquals(good, optimizer.best());
    }

    @Test
    void expectedImprovementIsPositiveWhereTheModelIsUnsure() {
        assertTrue(MetaOptimizer.expectedImprovement(0, 1, 0) > 0.3);
        assertEquals(0, MetaOptimizer.expectedImprovement(-1, 0, 0));
        assertTrue(MetaOptimizer.expectedImprovement(1, 0.1, 0) > MetaOptimizer.expectedImprovement(0.5, 0.1, 0));
    }
}
