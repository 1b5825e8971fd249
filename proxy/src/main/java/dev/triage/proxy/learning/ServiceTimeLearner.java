package dev.triage.proxy.learning;

import dev.triage.proxy.scheduler.ServiceTimeModel;

/**
 * Learns a backend's {@link LearnedServiceTime} online from completed requests: a weighted least-squares
 * fit of {@code seconds = base + prefill × promptTokens + perToken × tokens + perToken·growth × tokens ×
 * (running − 1)} on relative error, so that a 0.3 s answer weighs as much as a 30 s one.
 *
 * <ul>
 *   <li>The configured flags are the prior: a request made before the first, worth
 *       {@value #PRIOR_REQUESTS} of an average one in each term (what the requests seen told about the
 *       term with the others free, and what one typical request weighted like them tells about it
 *       alone, over their count; before any request weighs, as the flags would time the typical one),
 *       and forgotten at the same rate as the requests, down to {@value #PRIOR_FLOOR} of that. The first
 *       observations override it, and it fades alike in every term: a fixed cost that each request
 *       says little about, where every answer takes seconds, is not held near the flags' guess once
 *       hundreds of answers have spoken, nor is anything by flags far off the backend's speed.
 *   <li>Robust: each observation's weight is cut by Huber's rule once its relative residual passes
 *       {@value #HUBER} times the running scale of residuals, and is 0 past {@value #REJECT} times, so a
 *       stalled request does not move the fit. The scale itself follows the residuals (each clipped at
 *       three times it), so a backend that really changed speed is believed within a few dozen requests.
 *   <li>The statistics decay by {@value #DECAY} per observation (a memory of about 500 requests), so
 *       the fit follows a backend that changes speed.
 * </ul>
 *
 * <p>Four terms, none negative: each update solves a 4 × 4 system (and four more for the prior's
 * weights), and when a term would fall below 0 the smaller systems of the others, a few microseconds
 * at most. Not thread-safe: one thread feeds it.
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
    /** Every term free, as a bit set for {@link #solveFree}. */
    private static final int ALL_TERMS = (1 << TERMS) - 1;
    /** The ridge that keeps the gram invertible for {@link #marginalInformation}, relative to its diagonal. */
    private static final double RIDGE = 1e-9;
    /**
     * The least share of its first weight the prior keeps however long the learner runs: enough to
     * settle, without rounding deciding it, how the fit splits the time between terms that the
     * requests always move together (one prompt length, say), and too little to pull on any term the
     * requests do tell about.
     */
    private static final double PRIOR_FLOOR = 0.01;

    private final double[] prior;
    /** The flags' time for the typical request, which weighs it until a request is seen. */
    private final double flagsTypicalSeconds;
    private final double[][] gram = new double[TERMS][TERMS];
    private final double[] moment = new double[TERMS];
    private final double[] fit = new double[TERMS];
    private double residualScale = INITIAL_SCALE;
    private long observations;

    ServiceTimeLearner(LearnedServiceTime configured) {
        prior = new double[] {configured.baseSeconds(), configured.secondsPerPromptToken(), configured.secondsPerToken(),
                configured.secondsPerToken() * configured.growthPerRunning()};
        flagsTypicalSeconds = configured.seconds(TYPICAL[1], TYPICAL[2], 1);
        solve(); // the prior, as a restored state with no request solves it
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
        double base = fit[0];
        double perToken = fit[2];
        double growth = perToken > 0 ? fit[3] / perToken : 0;
        if (base + perToken == 0) {
            base = ServiceTimeModel.MIN_SECONDS;
        }
        return new LearnedServiceTime(base, fit[1], perToken, growth);
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
        double scale = state[state.length - 2];
        double count = state[state.length - 1];
        if (!(count >= 0) || count > Long.MAX_VALUE / 2 || !(scale >= MIN_SCALE) || Double.isInfinite(scale)) {
            return false;
        }
        for (int i = 0; i < state.length - 2; i++) {
            // Sums of weighted squares on the diagonal; no sums at all before the first request (the count weighs the prior).
            boolean diagonal = i < TERMS * TERMS && i / TERMS == i % TERMS;
            if (!Double.isFinite(state[i]) || diagonal && state[i] < 0 || count == 0 && state[i] != 0) {
                return false;
            }
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

    /**
     * Fits the terms, none below 0, to the statistics and the prior: minimises {@code fᵀ A f − 2 fᵀ c}
     * with A = gram + prior precision and c = moments + prior precision × prior, the prior's precision
     * in each term {@value #PRIOR_REQUESTS} times what an average request told about it (the requests'
     * {@link #marginalInformation} and the {@link #typicalInformation typical request}'s, over the
     * decayed count of requests, rejected ones included, and one), decayed as a request made before
     * the first would be, down to {@value #PRIOR_FLOOR} of it. A term that the
     * unconstrained solution puts below 0 is not simply set to 0 afterwards, which would leave the
     * others fitted to a model that no longer holds (a negative fixed cost paid back by an inflated
     * cost per prompt token): every set of terms left free is solved with the rest at 0, and the best
     * solution that is nowhere negative is kept. Nineteen 4 × 4 solves at most, four of them for the
     * prior's weights.
     */
    private void solve() {
        double[][] a = new double[TERMS][TERMS];
        double[] c = new double[TERMS];
        double forgotten = StrictMath.pow(DECAY, observations); // the same on every JVM, so a restore is exact
        double seen = (1 - forgotten) / (1 - DECAY);
        double[] typical = typicalInformation(seen);
        double[] told = marginalInformation(typical);
        for (int i = 0; i < TERMS; i++) {
            // A request made before the first and forgotten at the same rate, down to the floor.
            double priorPrecision = PRIOR_REQUESTS * Math.max(forgotten, PRIOR_FLOOR) * (told[i] + typical[i]) / (seen + 1);
            System.arraycopy(gram[i], 0, a[i], 0, TERMS);
            a[i][i] += priorPrecision;
            c[i] = moment[i] + priorPrecision * prior[i];
        }
        double[] best = solveFree(a, c, ALL_TERMS);
        if (best != null && isNonNegative(best)) {
            System.arraycopy(best, 0, fit, 0, TERMS);
            return;
        }
        best = new double[TERMS]; // every term 0: always allowed, objective 0
        double bestObjective = 0;
        for (int free = 1; free < ALL_TERMS; free++) {
            double[] solution = solveFree(a, c, free);
            if (solution == null || !isNonNegative(solution)) {
                continue;
            }
            // At a stationary point of the free terms, fᵀ A f = fᵀ c, so the objective is −fᵀ c.
            double objective = -dot(solution, c);
            if (objective < bestObjective) {
                bestObjective = objective;
                best = solution;
            }
        }
        System.arraycopy(best, 0, fit, 0, TERMS);
    }

    /**
     * What the typical request (the shape of {@link #TYPICAL}) tells about each term alone, weighted as
     * an average request seen so far was (the fit weighs a request by its predicted time when it
     * came); before any request weighs, as the flags would time it. However far the flags are off the
     * backend's speed, the prior so stays worth a quarter of one of the requests it is fitted to.
     *
     * @param seen the decayed count of requests seen
     */
    private double[] typicalInformation(double seen) {
        double weight = gram[0][0] / seen;
        if (!(seen > 0 && weight > 0 && Double.isFinite(weight))) {
            weight = 1 / (flagsTypicalSeconds * flagsTypicalSeconds);
        }
        double[] information = new double[TERMS];
        for (int i = 0; i < TERMS; i++) {
            information[i] = weight * TYPICAL[i] * TYPICAL[i];
        }
        return information;
    }

    /**
     * What the statistics tell about each term with the others free: 1 / (gram⁻¹)ᵢᵢ, the gram given a
     * ridge of a billionth of its diagonal or of the typical request's information, whichever is
     * larger. A term moved in step with another (the fixed cost against the time per token, when every
     * answer is long) is told much less than the gram's diagonal says; a term no request fills gets
     * next to nothing; 0 where the system cannot be solved.
     */
    private double[] marginalInformation(double[] typical) {
        double[][] a = new double[TERMS][TERMS];
        for (int i = 0; i < TERMS; i++) {
            System.arraycopy(gram[i], 0, a[i], 0, TERMS);
            a[i][i] += RIDGE * Math.max(gram[i][i], typical[i]); // invertible, at the statistics' own scale
        }
        double[] information = new double[TERMS];
        for (int i = 0; i < TERMS; i++) {
            double[] unit = new double[TERMS];
            unit[i] = 1;
            double[] column = solveFree(a, unit, ALL_TERMS);
            information[i] = column == null || !(column[i] > 0) ? 0 : 1 / column[i];
        }
        return information;
    }

    /**
     * The minimiser over the terms in the bit set {@code free}, the others held at 0, by Gaussian
     * elimination with partial pivoting; null when the system is singular.
     */
    private static double[] solveFree(double[][] a, double[] c, int free) {
        int[] terms = new int[Integer.bitCount(free)];
        for (int i = 0, k = 0; i < TERMS; i++) {
            if ((free & (1 << i)) != 0) {
                terms[k++] = i;
            }
        }
        int n = terms.length;
        double[][] m = new double[n][n + 1];
        for (int row = 0; row < n; row++) {
            for (int col = 0; col < n; col++) {
                m[row][col] = a[terms[row]][terms[col]];
            }
            m[row][n] = c[terms[row]];
        }
        for (int column = 0; column < n; column++) {
            int pivot = column;
            for (int row = column + 1; row < n; row++) {
                if (Math.abs(m[row][column]) > Math.abs(m[pivot][column])) {
                    pivot = row;
                }
            }
            double[] swap = m[column];
            m[column] = m[pivot];
            m[pivot] = swap;
            for (int row = column + 1; row < n; row++) {
                double factor = m[row][column] / m[column][column];
                for (int k = column; k <= n; k++) {
                    m[row][k] -= factor * m[column][k];
                }
            }
        }
        double[] solution = new double[TERMS];
        for (int row = n - 1; row >= 0; row--) {
            double sum = m[row][n];
            for (int k = row + 1; k < n; k++) {
                sum -= m[row][k] * solution[terms[k]];
            }
            double value = sum / m[row][row];
            if (!Double.isFinite(value)) {
                return null;
            }
            solution[terms[row]] = value;
        }
        return solution;
    }

    private static boolean isNonNegative(double[] values) {
        for (double value : values) {
            if (value < 0) {
                return false;
            }
        }
        return true;
    }

    private static double dot(double[] x, double[] y) {
        double sum = 0;
        for (int i = 0; i < x.length; i++) {
            sum += x[i] * y[i];
        }
        return sum;
    }
}
