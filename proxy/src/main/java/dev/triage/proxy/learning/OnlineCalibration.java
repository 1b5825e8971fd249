package dev.triage.proxy.learning;

import java.util.Arrays;

/**
 * Learns a {@link LearnedCalibration} online: for frozen estimates in each band of log tokens, the
 * mean log ratio of the backend's actual tokens to the estimate, shrunk towards the mean over all
 * bands (itself shrunk towards 0, the frozen model) while a band has seen little. The knot values
 * are then made increasing by pool-adjacent-violators and strictly increasing by a small step, so
 * the learned map never reorders or ties what the estimator told apart; it only moves the scale,
 * band by band, to this backend's verbosity.
 *
 * <p>Sums decay by {@value #DECAY} per observation, a memory of about a thousand answers, so the map
 * follows a backend whose model changes. A residual is clipped to ±{@value #MAX_LOG_RATIO} (a factor of
 * 20) so one runaway answer cannot drag a band. Not thread-safe: one thread feeds it.
 */
final class OnlineCalibration {

    static final double MIN_TOKENS = 1;
    static final double FIRST_KNOT = 0;
    static final double KNOT_SPACING = 0.25;
    /** Knots from 1 token to past a million (e^14). */
    static final int KNOTS = 57;
    static final double DECAY = 0.999;
    static final double MAX_LOG_RATIO = 3;
    /** Answers a band needs before its own mean counts as much as the overall one. */
    static final double BAND_SHRINK = 8;
    /** Answers overall before their mean counts as much as the frozen model. */
    static final double GLOBAL_SHRINK = 4;
    /** The least rise from one knot to the next, in log tokens: keeps the map strictly increasing. */
    static final double MIN_RISE = 1e-3;

    private final double[] counts = new double[KNOTS];
    private final double[] sums = new double[KNOTS];
    private double totalCount;
    private double totalSum;
    private long observations;

    static double knot(int index) {
        return FIRST_KNOT + index * KNOT_SPACING;
    }

    /** Adds one answer: the frozen estimate it was scheduled by and the tokens the backend wrote. */
    void learn(double frozenTokens, double actualTokens) {
        if (!(frozenTokens >= 0) || !(actualTokens >= 0) || Double.isInfinite(frozenTokens) || Double.isInfinite(actualTokens)) {
            return;
        }
        double x = Math.log(Math.max(frozenTokens, MIN_TOKENS));
        double ratio = Math.log(Math.max(actualTokens, MIN_TOKENS)) - x;
        ratio = Math.max(-MAX_LOG_RATIO, Math.min(MAX_LOG_RATIO, ratio));
        for (int i = 0; i < KNOTS; i++) {
            counts[i] *= DECAY;
            sums[i] *= DECAY;
        }
        totalCount = DECAY * totalCount + 1;
        totalSum = DECAY * totalSum + ratio;
        // The answer counts towards the two knots around its estimate, each by its nearness.
        double position = Math.max(0, Math.min(KNOTS - 1, (x - FIRST_KNOT) / KNOT_SPACING));
        int lower = Math.min((int) position, KNOTS - 2);
        double upperShare = position - lower;
        counts[lower] += 1 - upperShare;
        sums[lower] += (1 - upperShare) * ratio;
        counts[lower + 1] += upperShare;
        sums[lower + 1] += upperShare * ratio;
        observations++;
    }

    long observations() {
        return observations;
    }

    LearnedCalibration current() {
        return new LearnedCalibration(knotValues(this));
    }

    /** The knot values, log tokens; the identity for {@code null}. */
    static double[] knotValues(OnlineCalibration learned) {
        double[] values = new double[KNOTS];
        double[] weights = new double[KNOTS];
        double overall = learned == null ? 0 : learned.totalSum / (learned.totalCount + GLOBAL_SHRINK);
        for (int i = 0; i < KNOTS; i++) {
            double count = learned == null ? 0 : learned.counts[i];
            double sum = learned == null ? 0 : learned.sums[i];
            values[i] = knot(i) + (sum + BAND_SHRINK * overall) / (count + BAND_SHRINK);
            weights[i] = count + 1;
        }
        poolAdjacentViolators(values, weights);
        for (int i = 1; i < KNOTS; i++) {
            values[i] = Math.max(values[i], values[i - 1] + MIN_RISE);
        }
        return values;
    }

    /** Makes {@code values} non-decreasing with the least weighted squared change (isotonic regression). */
    static void poolAdjacentViolators(double[] values, double[] weights) {
        int n = values.length;
        double[] blockValue = new double[n];
        double[] blockWeight = new double[n];
        int[] blockSize = new int[n];
        int blocks = 0;
        for (int i = 0; i < n; i++) {
            blockValue[blocks] = values[i];
            blockWeight[blocks] = weights[i];
            blockSize[blocks] = 1;
            blocks++;
            while (blocks > 1 && blockValue[blocks - 2] > blockValue[blocks - 1]) {
                double weight = blockWeight[blocks - 2] + blockWeight[blocks - 1];
                blockValue[blocks - 2] = (blockValue[blocks - 2] * blockWeight[blocks - 2]
                        + blockValue[blocks - 1] * blockWeight[blocks - 1]) / weight;
                blockWeight[blocks - 2] = weight;
                blockSize[blocks - 2] += blockSize[blocks - 1];
                blocks--;
            }
        }
        int index = 0;
        for (int b = 0; b < blocks; b++) {
            Arrays.fill(values, index, index + blockSize[b], blockValue[b]);
            index += blockSize[b];
        }
    }

    /** The sums, for saving: counts, then sums, then the overall count, sum and observations. */
    double[] state() {
        double[] state = new double[2 * KNOTS + 3];
        System.arraycopy(counts, 0, state, 0, KNOTS);
        System.arraycopy(sums, 0, state, KNOTS, KNOTS);
        state[2 * KNOTS] = totalCount;
        state[2 * KNOTS + 1] = totalSum;
        state[2 * KNOTS + 2] = observations;
        return state;
    }

    /** Restores what {@link #state()} saved; false, changing nothing, when it does not fit. */
    boolean restore(double[] state) {
        if (state.length != 2 * KNOTS + 3) {
            return false;
        }
        for (int i = 0; i < KNOTS; i++) {
            double count = state[i];
            double sum = state[KNOTS + i];
            if (!(count >= 0) || Double.isInfinite(count) || !Double.isFinite(sum)
                    || Math.abs(sum) > MAX_LOG_RATIO * count + 1e-9) {
                return false;
            }
        }
        double count = state[2 * KNOTS];
        double sum = state[2 * KNOTS + 1];
        double seen = state[2 * KNOTS + 2];
        if (!(count >= 0) || Double.isInfinite(count) || !Double.isFinite(sum) || Math.abs(sum) > MAX_LOG_RATIO * count + 1e-9
                || !(seen >= 0) || seen > Long.MAX_VALUE / 2) {
            return false;
        }
        System.arraycopy(state, 0, counts, 0, KNOTS);
        System.arraycopy(state, KNOTS, sums, 0, KNOTS);
        totalCount = count;
        totalSum = sum;
        observations = (long) seen;
        return true;
    }
}
