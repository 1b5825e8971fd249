package dev.triage.bench.sim;

import java.util.random.RandomGenerator;

/**
 * A distribution of positive values (service seconds) that a synthetic workload draws job sizes from.
 */
public interface Distribution {

    double sample(RandomGenerator random);

    double mean();

    /**
     * A normal distribution truncated to positive values by drawing again. A service time must be
     * positive; the papers' distributions (Clairvoyant's N(3.5 s, 0.8 s)) put a negligible mass below
     * zero, and with sd at most a third of the mean, {@link #mean()} (the untruncated mean) is off by
     * less than 0.2%.
     */
    record Normal(double mean, double sd) implements Distribution {
        public Normal {
            if (!(mean > 0) || !(sd >= 0) || sd > mean / 3 || Double.isInfinite(mean)) {
                throw new IllegalArgumentException("normal(" + mean + ", " + sd + ") (expected: mean > 0, 0 <= sd <= mean / 3)");
            }
        }

        @Override
        public double sample(RandomGenerator random) {
            double value;
            do {
                value = random.nextGaussian(mean, sd);
            } while (value <= 0);
            return value;
        }
    }

    /**
     * A gamma distribution with the given shape k and scale θ: mean kθ, squared coefficient of
     * variation 1/k. Sampled by Marsaglia and Tsang's method (ACM TOMS 26(3), 2000), with the usual
     * boost {@code G(k) = G(k + 1) · U^(1/k)} for k below 1.
     */
    record Gamma(double shape, double scale) implements Distribution {
        public Gamma {
            if (!(shape > 0) || !(scale > 0) || Double.isInfinite(shape) || Double.isInfinite(scale)) {
                throw new IllegalArgumentException("gamma(" + shape + ", " + scale + ") (expected: shape > 0, scale > 0)");
            }
        }

        @Override
        public double mean() {
            return shape * scale;
        }

        @Override
        public double sample(RandomGenerator random) {
            if (shape < 1) {
                double boosted = standard(shape + 1, random);
                return scale * boosted * Math.pow(random.nextDouble(), 1 / shape);
            }
            return scale * standard(shape, random);
        }

        private static double standard(double shape, RandomGenerator random) {
            double d = shape - 1.0 / 3;
            double c = 1 / Math.sqrt(9 * d);
            while (true) {
                double x = random.nextGaussian();
                double v = 1 + c * x;
                if (v <= 0) {
                    continue;
                }
                v = v * v * v;
                double u = random.nextDouble();
                if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
                    return d * v;
                }
            }
        }
    }
}
