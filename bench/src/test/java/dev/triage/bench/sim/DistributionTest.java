package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistributionTest {

    private static final int SAMPLES = 200_000;

    @Test
    void gammaHasItsMeanAndVariance() {
        for (double shape : new double[] {0.4, 1, 2.5, 9}) {
            double scale = 1.7;
            double[] moments = moments(new Distribution.Gamma(shape, scale));
            assertEquals(shape * scale, moments[0], 0.02 * shape * scale, "mean, shape " + shape);
            assertEquals(shape * scale * scale, moments[1], 0.05 * shape * scale * scale, "variance, shape " + shape);
        }
    }

    @Test
    void normalIsTruncatedToPositiveValues() {
        Distribution normal = new Distribution.Normal(3.5, 0.8);
        double[] moments = moments(normal);
        assertEquals(3.5, moments[0], 0.01);
        assertEquals(0.64, moments[1], 0.01);
        SplittableRandom random = new SplittableRandom(1);
        Distribution wide = new Distribution.Normal(1, 1.0 / 3);
        for (int i = 0; i < SAMPLES; i++) {
            assertTrue(wide.sample(random) > 0);
        }
    }

    @Test
    void badParametersAreRefusedWithTheExpectedRange() {
        var e = assertThrows(IllegalArgumentException.class, () -> new Distribution.Normal(1, 2));
        assertTrue(e.getMessage().contains("sd <= mean / 3"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Distribution.Gamma(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Distribution.Gamma(1, -1));
    }

    private static double[] moments(Distribution distribution) {
        SplittableRandom random = new SplittableRandom(42);
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double value = distribution.sample(random);
            sum += value;
            squares += value * value;
        }
        double mean = sum / SAMPLES;
        return new double[] {mean, squares / SAMPLES - mean * mean};
    }
}
