package dev.triage.proxy.learning;

import dev.triage.proxy.scheduler.ServiceTimeModel;

/**
 * Learns a backend's {@link LearnedServiceTime} online from completed requests: a weighted least-squares
 * fit of {@code seconds = base + prefill × promptTokens + perToken × tokens + perToken·growth × tokens ×
 * (running − 1)} on relative error, so that a 0.3 s answer weighs as much as a 30 s one.
 *
 * <ul>
 *   <li>The configured flags are the prior, worth {@value #PRIOR_REQUESTS} typical requests: the first
 *       observations override it.
 *   <li>Robust: each observation's weight is cut by Huber's rule once its relative residual passes
 *       {@value #HUBER} times the running scale of residuals, and is 0 past {@value #REJECT} times, so a
 *       stalled request does not move the fit. The scale itself follows the residuals (each clipped at
 *       three times it), so a backend that really changed speed is believed within a few dozen requests.
 *   <li>The statistics decay by {@value #DECAY} per observation (a memory of about 500 requests), so
 *       the fit follows a backend that changes speed; the prior never decays.
 * </ul>
 *
 * <p>Four terms: each update solves a 4 × 4 system, well under a microsecond. Not thread-safe: one
 * thread feeds it.
 */
final class ServiceTimeLearner {

    static final int TERMS = 4;
    static final double DECAY = 0.998;
    static final double HUBER = 2.5;
    static final double REJECT = 5;
    static final double PRIOR_REQUESTS = 0.25;
    /**
     * The relative residuals' scale before any observation (the flags are a guess) and its floor (a
     * timer's and a network's jitter), below which an exact backend would make every change an outlier.
     */
    static final double INITIAL_SCALE = 0.5;
    static final double MIN_SCALE = 0.02;
    /** The shape of the typical request the prior is measured in: prompt and output tokens, running beside it. */
    private static final double[] TYPICAL = {1, 200, 200, 200};
    private static final double SCALE_RATE = 0.05;

    private final double[] prior;
    private final double[] priorPrecision = new double[TERMS];
    private final double[][] gram = new double[TERMS][TERMS];
    private final double[] moment = new double[TERMS];
    private final double[] fit = new double[TERMS];
    private double residualScale = INITIAL_SCALE;
    private long observations;

    ServiceTimeLearner(LearnedServiceTime configured) {
        prior = new double[] {configured.baseSeconds(), configured.secondsPerPromptToken(), configured.secondsPerToken(),
                configured.secondsPerToken() * configured.growthPerRunning()};
        double typicalSeconds = configured.seconds(TYPICAL[1], TYPICAL[2], 1);
        for (int i = 0; i < TERMS; i++) {
            double relative = TYPICAL[i] / typicalSeconds;
            priorPrecision[i] = PRIOR_REQUESTS * relative * relative;
        }
        System.arraycopy(prior, 0, fit, 0, TERMS);
    }

    /**
     * Adds one completed request.
     *
     * @param running requests running on the backend when it started, itself included
     * @param seconds from the request's dispatch to its last byte
     */
    void learn(double promptTokens, double outputTokens, int running, double seconds) {
        if (!(seconds > 0) || !(promptTokens >= 0) || !(outputTokens >= 0) || running < 1 || Double.isInfinite(seconds)
                || Double.isInfinite(promptTokens) || Double.isInfinite(outputTokens)) {
            return;
        }
        double[] x = {1, promptTokens, outputTokens, outputTokens * (running - 1)};
        double predicted = Math.max(ServiceTimeModel.MIN_SECONDS, dot(x, fit));
        double relative = Math.abs(seconds - predicted) / predicted;
        double robust = relative > REJECT * residualScale ? 0
                : relative > HUBER * residualScale ? HUBER * residualScale / relative : 1;
        residualScale = Math.max(MIN_SCALE, residualScale + SCALE_RATE * (Math.min(relative, 3 * residualScale) - residualScale));
        double weight = robust / (predicted * predicted);
        for (int i = 0; i < TERMS; i++) {
            moment[i] = DECAY * moment[i] + weight * x[i] * seconds;
            for (int j = 0; j < TERMS; j++) {
                gram[i][j] = DECAY * gram[i][j] + weight * x[i] * x[j];
            }
        }
        observations++;
        solve();
    }

    long observations() {
        return observations;
    }

    LearnedServiceTime current() {
        double base = Math.max(0, fit[0]);
        double perToken = Math.max(0, fit[2]);
        double growth = perToken > 0 ? Math.max(0, fit[3]) / perToken : 0;
        if (base + perToken == 0) {
            base = ServiceTimeModel.MIN_SECONDS;
        }
        return new LearnedServiceTime(base, Math.max(0, fit[1]), perToken, growth);
    }

    /** The statistics, for saving: the gram matrix row by row, the moments, the residual scale and the count. */
    double[] state() {
        double[] state = new double[TERMS * TERMS + TERMS + 2];
        for (int i = 0; i < TERMS; i++) {
            System.arraycopy(gram[i], 0, state, i * TERMS, TERMS);
        }
        System.arraycopy(moment, 0, state, TERMS * TERMS, TERMS);
        state[state.length - 2] = residualScale;
        state[state.length - 1] = observations;
        return state;
    }

    /** Restores what {@link #state()} saved; false, changing nothing, when it does not fit. */
    boolean restore(double[] state) {
        if (state.length != TERMS * TERMS + TERMS + 2) {
            return false;
        }
        for (int i = 0; i < state.length - 2; i++) {
            if (!Double.isFinite(state[i])) {
                return false;
            }
        }
        double scale = state[state.length - 2];
        double count = state[state.length - 1];
        if (!(count >= 0) || count > Long.MAX_VALUE / 2 || !(scale >= MIN_SCALE) || Double.isInfinite(scale)) {
            return false;
        }
        for (int i = 0; i < TERMS; i++) {
            System.arraycopy(state, i * TERMS, gram[i], 0, TERMS);
        }
        System.arraycopy(state, TERMS * TERMS, moment, 0, TERMS);
        residualScale = scale;
        observations = (long) count;
        solve();
        return true;
    }

    /** Solves (gram + prior precision) fit = moment + prior precision × prior by Gaussian elimination. */
    private void solve() {
        double[][] a = new double[TERMS][TERMS + 1];
        for (int i = 0; i < TERMS; i++) {
            System.arraycopy(gram[i], 0, a[i], 0, TERMS);
            a[i][i] += priorPrecision[i];
            a[i][TERMS] = moment[i] + priorPrecision[i] * prior[i];
        }
        for (int column = 0; column < TERMS; column++) {
            int pivot = column;
            for (int row = column + 1; row < TERMS; row++) {
                if (Math.abs(a[row][column]) > Math.abs(a[pivot][column])) {
                    pivot = row;
                }
            }
            double[] swap = a[column];
            a[column] = a[pivot];
            a[pivot] = swap;
            for (int row = column + 1; row < TERMS; row++) {
                double factor = a[row][column] / a[column][column];
                for (int k = column; k <= TERMS; k++) {
                    a[row][k] -= factor * a[column][k];
                }
            }
        }
        double[] solution = new double[TERMS];
        for (int row = TERMS - 1; row >= 0; row--) {
            double sum = a[row][TERMS];
            for (int k = row + 1; k < TERMS; k++) {
                sum -= a[row][k] * solution[k];
            }
            solution[row] = sum / a[row][row];
        }
        for (double value : solution) {
            if (!Double.isFinite(value)) {
                return; // keeps the last good fit
            }
        }
        System.arraycopy(solution, 0, fit, 0, TERMS);
    }

    private static double dot(double[] x, double[] y) {
        double sum = 0;
        for (int i = 0; i < x.length; i++) {
            sum += x[i] * y[i];
        }
        return sum;
    }
}
