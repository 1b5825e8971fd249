package dev.triage.proxy.learning;

import dev.triage.model.ranker.ScoreCalibration;
import java.util.Arrays;

/**
 * Learns a {@link LearnedCalibration} online from the last {@value #WINDOW} answers: for frozen
 * estimates in each band of log tokens (a knot every {@value #KNOT_SPACING}), the median log ratio of
 * the backend's actual tokens to the estimate, shrunk towards the median over all bands (itself shrunk
 * towards 0, the frozen model) while a band holds few answers. Medians, because the median of
 * |ln(estimate / actual)| is what an estimate should make small, and one runaway answer moves a median
 * by one place. The knot values are then made increasing by pool-adjacent-violators, weighted by the
 * bands' answers, with a slope of at least {@value #MIN_SLOPE}, so the learned map never reorders or
 * ties what the estimator told apart; it only moves the estimator's scale, band by band, to this
 * backend's verbosity.
 *
 * <p>A window rather than all history, so that the map follows a backend whose model changes; a
 * window of this size changes the map little from one answer to the next, so requests estimated a
 * few minutes apart are still ranked by one scale. Memory: two arrays of {@value #WINDOW} doubles.
 * Not thread-safe: one thread feeds it.
 */
final class OnlineCalibration {

    static final double FIRST_KNOT = 0;
    static final double KNOT_SPACING = 0.5;
    /** Knots from 1 token to past a million (e^14). */
    static final int KNOTS = 29;
    static final int WINDOW = 1024;
    /** Answers a band needs before its own median counts as much as the overall one. */
    static final double BAND_SHRINK = 32;
    /** Answers overall before their median counts as much as the frozen model. */
    static final double GLOBAL_SHRINK = 8;
    /**
     * The least slope of the map, in log tokens per log token of the frozen estimate. It keeps the map
     * strictly increasing, and more: a map that the noise of a few answers had flattened would squeeze
     * estimates the model told apart into a sliver, where the map's next small move would reorder them
     * against those estimated a moment earlier. The estimator's order is information; a backend's own
     * model mostly moves its scale.
     */
    static final double MIN_SLOPE = 0.5;

    /** Log of each remembered frozen estimate, and the log ratio of its answer to it; a ring. */
    private final double[] logEstimates = new double[WINDOW];
    private final double[] logRatios = new double[WINDOW];
    private long observations;

    static double knot(int index) {
        return FIRST_KNOT + index * KNOT_SPACING;
    }

    /** Adds one answer: the frozen estimate it was scheduled by and the tokens the backend wrote. */
    void learn(double frozenTokens, double actualTokens) {
        if (!(frozenTokens >= 0) || !(actualTokens >= 0) || Double.isInfinite(frozenTokens) || Double.isInfinite(actualTokens)) {
            return;
        }
        double logEstimate = Math.log(Math.min(Math.max(frozenTokens, 1), ScoreCalibration.MAX_TOKENS));
        int slot = (int) (observations % WINDOW);
        logEstimates[slot] = logEstimate;
        logRatios[slot] = Math.log(Math.min(Math.max(actualTokens, 1), ScoreCalibration.MAX_TOKENS)) - logEstimate;
        observations++;
    }

    /** Forgets every answer. */
    void forget() {
        observations = 0;
    }

    long observations() {
        return observations;
    }

    LearnedCalibration current() {
        int size = (int) Math.min(observations, WINDOW);
        double[] values = new double[KNOTS];
        double[] weights = new double[KNOTS];
        double overall = size == 0 ? 0 : median(Arrays.copyOf(logRatios, size), size) * size / (size + GLOBAL_SHRINK);
        double[][] bands = new double[KNOTS][];
        int[] counts = new int[KNOTS];
        for (int i = 0; i < size; i++) {
            counts[band(logEstimates[i])]++;
        }
        for (int b = 0; b < KNOTS; b++) {
            bands[b] = new double[counts[b]];
            counts[b] = 0;
        }
        for (int i = 0; i < size; i++) {
            int b = band(logEstimates[i]);
            bands[b][counts[b]++] = logRatios[i];
        }
        for (int b = 0; b < KNOTS; b++) {
            int n = counts[b];
            double own = n == 0 ? 0 : median(bands[b], n);
            values[b] = knot(b) + (n * own + BAND_SHRINK * overall) / (n + BAND_SHRINK);
            weights[b] = n + 1;
        }
        // The best fit with a slope of at least MIN_SLOPE: an isotonic fit of what is left once that slope is taken out.
        for (int b = 0; b < KNOTS; b++) {
            values[b] -= MIN_SLOPE * knot(b);
        }
        poolAdjacentViolators(values, weights);
        for (int b = 0; b < KNOTS; b++) {
            values[b] += MIN_SLOPE * knot(b);
        }
        return new LearnedCalibration(values);
    }

    private static int band(double logEstimate) {
        return (int) Math.max(0, Math.min(KNOTS - 1, Math.round((logEstimate - FIRST_KNOT) / KNOT_SPACING)));
    }

    /** The median of the first {@code n} values, which it reorders. */
    private static double median(double[] values, int n) {
        Arrays.sort(values, 0, n);
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
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

    /** The window, for saving: the log estimates, then the log ratios, then the count of answers seen. */
    double[] state() {
        double[] state = new double[2 * WINDOW + 1];
        System.arraycopy(logEstimates, 0, state, 0, WINDOW);
        System.arraycopy(logRatios, 0, state, WINDOW, WINDOW);
        state[2 * WINDOW] = observations;
        return state;
    }

    /** Restores what {@link #state()} saved; false, changing nothing, when it does not fit. */
    boolean restore(double[] state) {
        if (state.length != 2 * WINDOW + 1) {
            return false;
        }
        double seen = state[2 * WINDOW];
        if (!(seen >= 0) || seen > Long.MAX_VALUE / 2 || seen != Math.rint(seen)) {
            return false;
        }
        for (int i = 0; i < WINDOW; i++) {
            double logEstimate = state[i];
            double logRatio = state[WINDOW + i];
            // What learn() can have written: an estimate of 1 to a million tokens, an answer of 1 to a million.
            if (!(logEstimate >= 0 && logEstimate <= 14) || !(Math.abs(logRatio) <= 28)) {
                return false;
            }
        }
        System.arraycopy(state, 0, logEstimates, 0, WINDOW);
        System.arraycopy(state, WINDOW, logRatios, 0, WINDOW);
        observations = (long) seen;
        return true;
    }
}
