package dev.triage.proxy.learning;

import dev.triage.model.ranker.ScoreCalibration;

/**
 * A backend's map from the frozen estimator's tokens to the tokens this backend's model writes, as
 * learned from its answers: knots at fixed points of log tokens, a value of log tokens at each,
 * linear in between and with slope 1 beyond (so 0 stays 0). Strictly increasing below {@link ScoreCalibration#MAX_TOKENS}:
 * two requests the estimator told apart keep their order and never tie. Immutable.
 */
public final class LearnedCalibration {

    /** The identity: what serves before anything was learned, and with learning off. */
    public static final LearnedCalibration IDENTITY = new LearnedCalibration(identityValues());

    private final double[] values;

    LearnedCalibration(double[] values) {
        this.values = values;
    }

    private static double[] identityValues() {
        double[] values = new double[OnlineCalibration.KNOTS];
        for (int i = 0; i < values.length; i++) {
            values[i] = OnlineCalibration.knot(i);
        }
        return values;
    }

    /** This backend's expected tokens for a request the frozen estimator expects {@code frozenTokens} of. */
    public double tokens(double frozenTokens) {
        if (this == IDENTITY) {
            return frozenTokens;
        }
        double x = Math.log(frozenTokens); // -Infinity for 0, which maps to 0
        double position = (x - OnlineCalibration.FIRST_KNOT) / OnlineCalibration.KNOT_SPACING;
        int last = values.length - 1;
        double logTokens;
        if (position <= 0) {
            logTokens = values[0] + (x - OnlineCalibration.FIRST_KNOT);
        } else if (position >= last) {
            logTokens = values[last] + (x - OnlineCalibration.knot(last));
        } else {
            int lower = (int) position;
            double fraction = position - lower;
            logTokens = values[lower] + fraction * (values[lower + 1] - values[lower]);
        }
        return Math.min(ScoreCalibration.MAX_TOKENS, Math.exp(logTokens));
    }
}
