package dev.triage.proxy.learning;

import dev.triage.features.RequestFeatures;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * This backend's own order of prompts, learned online: a linear correction added to the log of the
 * estimate that would serve otherwise, over the request's features ({@link RequestFeatures}) and
 * that log itself, each standardized by its running mean and spread. It is fitted by pairwise
 * logistic updates: each completed answer is paired with {@value #PAIRS} answers drawn from the last
 * {@value #WINDOW}, and the correction moves so that the longer answer of each pair scores higher.
 * A decay pulls the weights back to zero, the prior's own order, where the pairs say nothing.
 *
 * <p>The standardized features are centred on recent traffic, so the correction moves estimates
 * up and down around the calibrated scale rather than shifting it. One thread learns; readers take
 * the last published {@link Correction} from any thread.
 */
final class RankingAdaptation {

    /** Answers kept to pair each new answer with. */
    static final int WINDOW = 256;
    /** Pairs learned from per answer. */
    static final int PAIRS = 8;
    /**
     * Step of the pairwise updates. Small: the pairs of one backend's answers are noisy, and a fast
     * learner follows the noise (on a held-out answering model, ten times this step ranked worse
     * than the frozen estimator while this one ranked better).
     */
    static final double LEARNING_RATE = 0.0002;
    /** Pull of the weights towards zero per update: the frozen order wins unless pairs keep saying otherwise. */
    static final double DECAY = 0.002;
    /** Pairs whose answers are closer than this (in log tokens, a factor of 1.5) teach noise: skipped. */
    static final double MIN_LOG_GAP = Math.log(1.5);
    /** Weight of the newest request in the running means and spreads: about the last 200. */
    static final double STANDARDIZE_RATE = 0.005;
    /** A standardized value is clipped here: one odd prompt moves its own estimate by a bounded amount. */
    static final double CLIP = 4;
    /** Inputs: the log of the estimate that serves otherwise, then the request's features. */
    static final int INPUTS = 1 + RequestFeatures.COUNT;

    private final double[] weights = new double[INPUTS];
    private final double[] mean = new double[INPUTS];
    private final double[] variance = new double[INPUTS];
    private final double[][] inputs = new double[WINDOW][];
    private final double[] logActual = new double[WINDOW];
    private final SplittableRandom random = new SplittableRandom(13);
    private int next;
    private int filled;
    private long observations;
    private volatile Correction published = Correction.NONE;

    /** The correction as it stands, for readers on any thread. */
    Correction current() {
        return published;
    }

    long observations() {
        return observations;
    }

    /**
     * Learns one completed request's answer: pairs it with earlier ones, then keeps it.
     *
     * @param logBase ln of the estimate that would serve without the correction
     * @param features the request's {@link RequestFeatures}
     */
    void learn(double logBase, float[] features, long actualTokens) {
        double[] input = input(logBase, features);
        Correction correction = published;
        double[] standardized = correction.standardized(input);
        double logAnswer = Math.log(Math.max(1, actualTokens));
        for (int p = 0; p < Math.min(PAIRS, filled); p++) {
            int j = random.nextInt(filled);
            double gap = logAnswer - logActual[j];
            if (Math.abs(gap) < MIN_LOG_GAP) {
                continue;
            }
            double sign = Math.signum(gap);
            double[] other = correction.standardized(inputs[j]);
            double margin = input[0] - inputs[j][0];
            for (int k = 0; k < INPUTS; k++) {
                margin += weights[k] * (standardized[k] - other[k]);
            }
            // The logistic loss's slope at this margin: large while the pair is ranked wrong or barely right.
            double pull = sign / (1 + Math.exp(sign * margin));
            for (int k = 0; k < INPUTS; k++) {
                weights[k] += LEARNING_RATE * (pull * (standardized[k] - other[k]) - DECAY * weights[k]);
            }
        }
        inputs[next] = input;
        logActual[next] = logAnswer;
        next = (next + 1) % WINDOW;
        filled = Math.min(filled + 1, WINDOW);
        standardize(input);
        observations++;
        publish();
    }

    /** Drops what was learned, for an estimator whose model changed. */
    void forget() {
        Arrays.fill(weights, 0);
        Arrays.fill(mean, 0);
        Arrays.fill(variance, 0);
        Arrays.fill(inputs, null);
        Arrays.fill(logActual, 0);
        next = 0;
        filled = 0;
        observations = 0;
        published = Correction.NONE;
    }

    static double[] input(double logBase, float[] features) {
        double[] input = new double[INPUTS];
        input[0] = logBase;
        for (int k = 0; k < features.length; k++) {
            input[k + 1] = features[k];
        }
        return input;
    }

    private void standardize(double[] input) {
        if (observations == 0) {
            System.arraycopy(input, 0, mean, 0, INPUTS);
            return;
        }
        for (int k = 0; k < INPUTS; k++) {
            double deviation = input[k] - mean[k];
            mean[k] += STANDARDIZE_RATE * deviation;
            variance[k] += STANDARDIZE_RATE * (deviation * deviation - variance[k]);
        }
    }

    private void publish() {
        double[] inverseScale = new double[INPUTS];
        for (int k = 0; k < INPUTS; k++) {
            // A feature that has not varied (a constant, or too few requests yet) gets no weight.
            inverseScale[k] = variance[k] > 1e-12 ? 1 / Math.sqrt(variance[k]) : 0;
        }
        published = new Correction(weights.clone(), mean.clone(), inverseScale);
    }

    private static double clip(double value) {
        return Math.max(-CLIP, Math.min(CLIP, value));
    }

    /** What is saved: the weights, the running means and variances, and the answers learned from. */
    double[] state() {
        double[] state = new double[3 * INPUTS + 1];
        System.arraycopy(weights, 0, state, 0, INPUTS);
        System.arraycopy(mean, 0, state, INPUTS, INPUTS);
        System.arraycopy(variance, 0, state, 2 * INPUTS, INPUTS);
        state[3 * INPUTS] = observations;
        return state;
    }

    /**
     * Restores saved statistics; false, changing nothing, when they do not fit. The window of answers
     * to pair with is not saved: it refills from the next {@value #WINDOW} answers.
     */
    boolean restore(double[] state) {
        if (state.length != 3 * INPUTS + 1 || state[3 * INPUTS] < 0) {
            return false;
        }
        for (int k = 0; k < 3 * INPUTS; k++) {
            if (!Double.isFinite(state[k]) || k >= 2 * INPUTS && state[k] < 0) {
                return false;
            }
        }
        forget();
        System.arraycopy(state, 0, weights, 0, INPUTS);
        System.arraycopy(state, INPUTS, mean, 0, INPUTS);
        System.arraycopy(state, 2 * INPUTS, variance, 0, INPUTS);
        observations = (long) state[3 * INPUTS];
        publish();
        return true;
    }

    /**
     * The correction at one moment, immutable.
     *
     * @param weights per standardized input
     * @param mean the inputs' running means
     * @param inverseScale one over the inputs' running spreads; 0 for an input that has not varied
     */
    record Correction(double[] weights, double[] mean, double[] inverseScale) {

        static final Correction NONE = new Correction(new double[INPUTS], new double[INPUTS], new double[INPUTS]);

        /** The correction to ln tokens for a request whose inputs are {@code input} ({@link #input}). */
        double score(double[] input) {
            double score = 0;
            for (int k = 0; k < INPUTS; k++) {
                score += weights[k] * clip((input[k] - mean[k]) * inverseScale[k]);
            }
            return score;
        }

        double[] standardized(double[] input) {
            double[] standardized = new double[INPUTS];
            for (int k = 0; k < INPUTS; k++) {
                standardized[k] = clip((input[k] - mean[k]) * inverseScale[k]);
            }
            return standardized;
        }
    }
}
