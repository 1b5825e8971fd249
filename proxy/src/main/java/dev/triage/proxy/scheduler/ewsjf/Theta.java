package dev.triage.proxy.scheduler.ewsjf;

import java.util.Arrays;
import java.util.Locale;

/**
 * EWSJF's meta-parameters Θ: the meta-policy that turns a queue's mean size b̄ into the weights of
 * its score, and the gap ratio α of Refine-and-Prune. The weights are linear in b̄ counted in
 * thousands of tokens (the paper's w_urg(b̄) = a_u·b̄ + b_u), floored at {@link #MIN_WEIGHT} so that the
 * urgency of a waiting job always grows (the starvation-freedom theorem needs w_urg &gt; 0). The score's
 * base weight is 1: the score is only ever compared, so one weight fixes its scale.
 *
 * @param urgencySlope a_u, per thousand tokens of b̄
 * @param urgencyBase b_u
 * @param fairnessSlope a_f, per thousand tokens of b̄
 * @param fairnessBase b_f
 * @param alpha the gap significance ratio of Refine-and-Prune, above 1
 */
public record Theta(double urgencySlope, double urgencyBase, double fairnessSlope, double fairnessBase, double alpha) {

    /** The smallest weight the meta-policy gives. */
    public static final double MIN_WEIGHT = 1e-3;

    /** Where the meta-optimizer starts: no dependence on the queue's size, and α = 3. */
    public static final Theta DEFAULT = new Theta(0, 0.1, 0, 0.1, 3);

    /** The box the meta-optimizer searches, per parameter: lower and upper bound. */
    static final double[][] BOUNDS = {{-0.5, 0.5}, {MIN_WEIGHT, 1}, {-0.5, 0.5}, {0, 1}, {1.5, 10}};

    static final String[] NAMES = {"urgency_slope", "urgency_base", "fairness_slope", "fairness_base", "alpha"};

    public Theta {
        double[] values = {urgencySlope, urgencyBase, fairnessSlope, fairnessBase, alpha};
        for (double value : values) {
            if (!Double.isFinite(value)) {
                throw new IllegalArgumentException("theta " + Arrays.toString(values) + " (expected: finite)");
            }
        }
        if (!(alpha > 1)) {
            throw new IllegalArgumentException("alpha: " + alpha + " (expected: > 1)");
        }
    }

    /** w_urg(b̄) = max(MIN_WEIGHT, a_u·b̄/1000 + b_u). */
    public double urgencyWeight(double meanSize) {
        return Math.max(MIN_WEIGHT, urgencySlope * meanSize / 1000 + urgencyBase);
    }

    /** w_fair(b̄) = max(0, a_f·b̄/1000 + b_f). */
    public double fairnessWeight(double meanSize) {
        return Math.max(0, fairnessSlope * meanSize / 1000 + fairnessBase);
    }

    double[] values() {
        return new double[] {urgencySlope, urgencyBase, fairnessSlope, fairnessBase, alpha};
    }

    /** Θ as a point of the unit cube over {@link #BOUNDS}, where the meta-optimizer works. */
    double[] toUnit() {
        double[] values = values();
        double[] unit = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            double[] bound = BOUNDS[i];
            unit[i] = Math.min(1, Math.max(0, (values[i] - bound[0]) / (bound[1] - bound[0])));
        }
        return unit;
    }

    static Theta fromUnit(double[] unit) {
        double[] values = new double[unit.length];
        for (int i = 0; i < unit.length; i++) {
            double[] bound = BOUNDS[i];
            values[i] = bound[0] + Math.min(1, Math.max(0, unit[i])) * (bound[1] - bound[0]);
        }
        return new Theta(values[0], values[1], values[2], values[3], values[4]);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Θ{a_u=%.4g, b_u=%.4g, a_f=%.4g, b_f=%.4g, α=%.3g}",
                urgencySlope, urgencyBase, fairnessSlope, fairnessBase, alpha);
    }
}
