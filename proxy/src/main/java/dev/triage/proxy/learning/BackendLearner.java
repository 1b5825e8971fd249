package dev.triage.proxy.learning;

import java.util.OptionalInt;

/**
 * Everything Triage learns about one backend's kind of request from its completed requests: the
 * backend's {@link LearnedServiceTime} and its {@link LearnedCalibration} of the estimator's tokens.
 * Readers (the request path) take the last published model from any thread with no lock; one thread,
 * the learner's, feeds it. Frozen, it serves the configured model and learns nothing.
 *
 * <p>Each request's served estimate is made before its answer is seen, so the running errors it keeps
 * (mean |ln(estimate / actual)|, learned and frozen side by side) are prequential.
 */
public final class BackendLearner {

    /** Weight of the newest answer in the running errors: about the last 200 answers. */
    static final double ERROR_RATE = 0.005;

    private final String key;
    private final String learnedFor;
    private final boolean learning;
    private final ServiceTimeLearner serviceTime;
    private final OnlineCalibration calibration = new OnlineCalibration();
    private volatile LearnedServiceTime servedServiceTime;
    private volatile LearnedCalibration servedCalibration = LearnedCalibration.IDENTITY;
    // Written by the learner's thread, read by metrics.
    private volatile double learnedLogError = Double.NaN;
    private volatile double frozenLogError = Double.NaN;
    private volatile double serviceLogError = Double.NaN;
    private volatile long learned;

    /**
     * @param key the backend and the kind of request ({@code chat/chat}), as state files and metrics name it
     * @param learnedFor what the learned state holds for: the backend's URL and the estimator whose tokens
     *     it calibrates; saved state learned for anything else is not loaded
     * @param configured the prior: the flags' service time
     * @param learning false freezes it at the configured model
     */
    public BackendLearner(String key, String learnedFor, LearnedServiceTime configured, boolean learning) {
        this.key = key;
        this.learnedFor = learnedFor;
        this.learning = learning;
        this.serviceTime = new ServiceTimeLearner(configured);
        this.servedServiceTime = configured;
    }

    public String key() {
        return key;
    }

    public String learnedFor() {
        return learnedFor;
    }

    public boolean learning() {
        return learning;
    }

    /** The tokens to schedule by for an estimator's {@code frozenTokens}, within the request's own limit. */
    public double tokens(double frozenTokens, OptionalInt outputCap) {
        double tokens = servedCalibration.tokens(frozenTokens);
        return outputCap.isPresent() ? Math.min(tokens, outputCap.getAsInt()) : tokens;
    }

    public LearnedServiceTime serviceTime() {
        return servedServiceTime;
    }

    /** Completed requests learned from. */
    public long learned() {
        return learned;
    }

    /** Running mean |ln(served estimate / actual tokens)|, prequential; NaN before the first answer. */
    public double learnedLogError() {
        return learnedLogError;
    }

    /** The same for the frozen estimator's own estimates. */
    public double frozenLogError() {
        return frozenLogError;
    }

    /** Running mean |ln(expected seconds / actual seconds)|, prequential; NaN before the first answer. */
    public double serviceLogError() {
        return serviceLogError;
    }

    /** Learns from one completed request; called on the learner's thread only. */
    void learn(CompletedRequest request) {
        if (request.teachesLength()) {
            double actual = Math.max(1, request.actualTokens());
            learnedLogError = running(learnedLogError, logRatio(tokens(request.frozenTokens(), request.outputCap()), actual));
            frozenLogError = running(frozenLogError, logRatio(request.frozenTokens(), actual));
        }
        serviceLogError = running(serviceLogError, logRatio(
                servedServiceTime.seconds(request.promptTokens(), request.actualTokens(), request.running()), request.serviceSeconds()));
        if (!learning) {
            return;
        }
        if (request.teachesLength()) {
            calibration.learn(request.frozenTokens(), request.actualTokens());
            servedCalibration = calibration.current();
        }
        serviceTime.learn(request.promptTokens(), request.actualTokens(), request.running(), request.serviceSeconds());
        servedServiceTime = serviceTime.current();
        learned++;
    }

    /** What is saved: the service time's and the calibration's statistics. */
    LearnedState state() {
        return new LearnedState(serviceTime.state(), calibration.state());
    }

    /** Restores saved statistics; false, changing nothing, when they do not fit this learner. */
    boolean restore(LearnedState state) {
        if (!learning) {
            return false;
        }
        double[] serviceBefore = serviceTime.state();
        if (!serviceTime.restore(state.serviceTime())) {
            return false;
        }
        if (!calibration.restore(state.calibration())) {
            serviceTime.restore(serviceBefore);
            return false;
        }
        servedServiceTime = serviceTime.current();
        servedCalibration = calibration.current();
        learned = serviceTime.observations();
        return true;
    }

    private static double logRatio(double estimate, double actual) {
        return Math.abs(Math.log(Math.max(estimate, 1e-9) / Math.max(actual, 1e-9)));
    }

    private static double running(double mean, double value) {
        if (!Double.isFinite(value)) {
            return mean;
        }
        return Double.isNaN(mean) ? value : mean + ERROR_RATE * (value - mean);
    }

    /**
     * A learner's saved statistics.
     *
     * @param serviceTime the service-time fit's sums
     * @param calibration the calibration's sums
     */
    record LearnedState(double[] serviceTime, double[] calibration) {}
}
