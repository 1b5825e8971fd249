package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OnlineCalibrationTest {

    @Test
    void beforeAnyAnswerItIsTheIdentity() {
        LearnedCalibration calibration = new OnlineCalibration().current();
        for (double tokens : new double[] {0, 0.3, 1, 17, 250, 4000, 90_000}) {
            assertEquals(tokens, calibration.tokens(tokens), 1e-9 * Math.max(1, tokens));
        }
    }

    @Test
    void learnsThatThisBackendsModelWritesThreeTimesWhatTheEstimatorExpects() {
        OnlineCalibration learner = new OnlineCalibration();
        Random random = new Random(1);
        for (int i = 0; i < 300; i++) {
            double estimate = Math.exp(3 + 2.5 * random.nextDouble());
            learner.learn(estimate, 3 * estimate * Math.exp(0.3 * random.nextGaussian()));
        }
        LearnedCalibration calibration = learner.current();
        for (double estimate : new double[] {30, 100, 400}) {
            assertEquals(Math.log(3), Math.log(calibration.tokens(estimate) / estimate), 0.15, "at " + estimate);
        }
    }

    @Test
    void neverTiesOrReordersDistinctEstimatesWhateverItLearns() {
        OnlineCalibration learner = new OnlineCalibration();
        Random random = new Random(2);
        for (int i = 0; i < 2000; i++) {
            // Answers that fall as the estimate rises, and a few wild ones: the worst case for monotonicity.
            double estimate = Math.exp(8 * random.nextDouble());
            double actual = i % 50 == 0 ? 1_000_000 : 5000 / estimate;
            learner.learn(estimate, actual);
        }
        LearnedCalibration calibration = learner.current();
        double previous = -1;
        for (double estimate = 0; estimate < 200_000; estimate = estimate * 1.01 + 0.01) {
            double tokens = calibration.tokens(estimate);
            assertTrue(tokens > previous, "tokens(" + estimate + ") = " + tokens + " after " + previous);
            assertTrue(Double.isFinite(tokens));
            previous = tokens;
        }
    }

    @Test
    void poolAdjacentViolatorsAveragesTheBlocksThatFallByTheirWeights() {
        double[] values = {1, 3, 2, 2, 5, 4};
        OnlineCalibration.poolAdjacentViolators(values, new double[] {1, 1, 1, 2, 1, 3});
        assertEquals(Arrays.toString(new double[] {1, 2.25, 2.25, 2.25, 4.25, 4.25}), Arrays.toString(values));
    }

    @Test
    void savedStateRestoresTheSameMapAndStateThatCannotBeTrueIsRefused() {
        OnlineCalibration learner = new OnlineCalibration();
        Random random = new Random(4);
        for (int i = 0; i < 100; i++) {
            double estimate = Math.exp(6 * random.nextDouble());
            learner.learn(estimate, 0.5 * estimate);
        }
        OnlineCalibration restored = new OnlineCalibration();
        assertTrue(restored.restore(learner.state()));
        assertEquals(learner.current().tokens(123), restored.current().tokens(123), 1e-12);
        double[] impossible = learner.state();
        impossible[3] = 40; // the log of an estimate past a million tokens
        assertFalse(new OnlineCalibration().restore(impossible));
        assertFalse(new OnlineCalibration().restore(new double[7]));
    }

    @Test
    void aRunawayAnswerMovesTheMedianOnlyByItsPlace() {
        OnlineCalibration learner = new OnlineCalibration();
        for (int i = 0; i < 100; i++) {
            learner.learn(100, 200);
        }
        double settled = learner.current().tokens(100);
        learner.learn(100, 900_000);
        assertEquals(settled, learner.current().tokens(100), 0.01 * settled, "a mean would have moved 9%");
    }
}
