package dev.triage.proxy.learning;

import dev.triage.proxy.scheduler.JobCost;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Everything Triage learns about one backend's kind of request from its completed requests: the
 * backend's {@link LearnedServiceTime}, its {@link LearnedCalibration} of the estimator's tokens, and
 * its {@link RepeatMemory} of what it answered to prompts that come back.
 * Readers (the request path) take the last published model from any thread with no lock; one thread,
 * the learner's, feeds it. Frozen, it serves the configured model and learns nothing.
 *
 * <p>A shadow evaluation guards the calibration: for every answer, the learned map's estimate and the
 * frozen estimator's are both scored against it before it is learned from (prequential), and the
 * learned map serves only while its running mean |ln(estimate / actual)| is the lower one (it must
 * first beat the frozen one by {@value #SWITCH_MARGIN}, so that the two do not take turns on noise).
 * On a backend whose model answers as the training data did, the frozen estimates keep serving.
 */
public final class BackendLearner {

    /** Weight of the newest answer in the running errors: about the last 100 answers. */
    static final double ERROR_RATE = 0.01;
    /**
     * The calibration's map is rebuilt after every answer while it has seen up to {@value #REFRESH_ALWAYS}
     * (when each answer moves it most, and a rebuild is cheap), then after every {@value #REFRESH_EVERY}th:
     * a rebuild sorts the whole window, and one answer in a thousand moves it little.
     */
    static final int REFRESH_ALWAYS = 256;
    static final int REFRESH_EVERY = 16;
    /** How much lower the learned map's running error must be before it takes over from the frozen one. */
    static final double SWITCH_MARGIN = 0.1;

    private final String key;
    private final String learnedFor;
    private final boolean learning;
    private final ServiceTimeLearner serviceTime;
    private final OnlineCalibration calibration = new OnlineCalibration();
    private final RepeatMemory repeats = new RepeatMemory();
    private volatile LearnedServiceTime servedServiceTime;
    private LearnedCalibration learnedCalibration = LearnedCalibration.IDENTITY;
    private volatile LearnedCalibration servedCalibration = LearnedCalibration.IDENTITY;
    // Written by the learner's thread, read by metrics.
    private volatile double learnedLogError = Double.NaN;
    private volatile double frozenLogError = Double.NaN;
    private volatile double serviceLogError = Double.NaN;
    private volatile long learned;
    /** Moves whenever the served service time or calibration may have changed. */
    private volatile long version;

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

    /**
     * The tokens to schedule by for an estimator's {@code frozenTokens}, within the request's own limit:
     * the calibrated estimate, blended with the prompt's past answers when it is a repeat.
     *
     * @param fingerprint the prompt's {@link PromptFingerprint}, when it has one
     */
    public double tokens(double frozenTokens, OptionalLong fingerprint, OptionalInt outputCap) {
        double model = capped(servedCalibration.tokens(frozenTokens), outputCap);
        return fingerprint.isPresent() ? capped(repeats.tokens(fingerprint.getAsLong(), model), outputCap) : model;
    }

    /**
     * What a request is expected to cost this backend by the models as they are now: its tokens by
     * {@link #tokens}, and its seconds by the served service time with {@code running} requests
     * decoding together.
     */
    public JobCost cost(double frozenTokens, OptionalLong fingerprint, OptionalInt outputCap, int promptTokens, int running) {
        double tokens = tokens(frozenTokens, fingerprint, outputCap);
        LearnedServiceTime served = servedServiceTime;
        return new JobCost(promptTokens, tokens, served.prefillSeconds(promptTokens), served.seconds(promptTokens, tokens, running));
    }

    private static double capped(double tokens, OptionalInt outputCap) {
        return outputCap.isPresent() ? Math.min(tokens, outputCap.getAsInt()) : tokens;
    }

    public LearnedServiceTime serviceTime() {
        return servedServiceTime;
    }

    /** Completed requests learned from. */
    public long learned() {
        return learned;
    }

    /**
     * Running mean |ln(estimate / actual tokens)| of the learned calibration's estimates, served or not,
     * each made before its answer was learned from; NaN before the first answer.
     */
    public double learnedLogError() {
        return learnedLogError;
    }

    /** The same for the frozen estimator's own estimates. */
    public double frozenLogError() {
        return frozenLogError;
    }

    /** Running mean |ln(estimate / actual tokens)| of the repeat memory's estimates for repeated prompts, served or not; NaN before the first. */
    public double repeatLogError() {
        return repeats.repeatLogError();
    }

    /** The same for the model's (calibrated where that serves) estimates of those repeated prompts. */
    public double repeatModelLogError() {
        return repeats.modelLogError();
    }

    /** Whether the repeat memory's estimates serve for repeated prompts now. */
    public boolean repeatsServe() {
        return repeats.serving();
    }

    /** Prompt fingerprints remembered, at most {@value RepeatMemory#CAPACITY}. */
    public int repeatsRemembered() {
        return repeats.size();
    }

    /** Running mean |ln(expected seconds / actual seconds)|, prequential; NaN before the first answer. */
    public double serviceLogError() {
        return serviceLogError;
    }

    /**
     * Learns from one completed request. One thread only: the live proxy's learner thread, or the
     * simulator's, which replays a stream through this same code.
     */
    public void learn(CompletedRequest request) {
        if (request.teachesLength()) {
            double actual = Math.max(1, request.actualTokens());
            learnedLogError = running(learnedLogError, logRatio(learnedCalibration.tokens(request.frozenTokens()), actual));
            frozenLogError = running(frozenLogError, logRatio(request.frozenTokens(), actual));
        }
        serviceLogError = running(serviceLogError, logRatio(
                servedServiceTime.seconds(request.promptTokens(), request.actualTokens(), request.running()), request.serviceSeconds()));
        if (!learning) {
            return;
        }
        double modelTokens = servedCalibration.tokens(request.frozenTokens());
        if (request.teachesLength()) {
            calibration.learn(request.frozenTokens(), request.actualTokens());
            long answers = calibration.observations();
            if (answers <= REFRESH_ALWAYS || answers % REFRESH_EVERY == 0) {
                learnedCalibration = calibration.current();
            }
            servedCalibration = learnedServes() ? learnedCalibration : LearnedCalibration.IDENTITY;
        }
        if (request.fingerprint().isPresent() && request.answerWhole()) {
            repeats.learn(request.fingerprint().getAsLong(), capped(modelTokens, request.outputCap()), request.actualTokens());
        }
        serviceTime.learn(request.promptTokens(), request.actualTokens(), request.running(), request.serviceSeconds());
        servedServiceTime = serviceTime.current();
        learned++;
        version++;
    }

    /**
     * Moves whenever what {@link #tokens} and {@link #serviceTime} serve may have changed, so that
     * costs computed from them can be computed again.
     */
    public long version() {
        return version;
    }

    /** Drops the calibration and its shadow evaluation, for an estimator whose model changed; the service time stays. */
    void forgetCalibration() {
        calibration.forget();
        learnedCalibration = LearnedCalibration.IDENTITY;
        servedCalibration = LearnedCalibration.IDENTITY;
        learnedLogError = Double.NaN;
        frozenLogError = Double.NaN;
        version++;
    }

    /** True when the learned calibration should serve: it serves, or it has clearly beaten the frozen estimates. */
    private boolean learnedServes() {
        boolean serving = servedCalibration != LearnedCalibration.IDENTITY;
        double margin = serving ? 1 : 1 - SWITCH_MARGIN;
        return learnedLogError < margin * frozenLogError;
    }

    /** Whether the learned calibration serves now, rather than the frozen estimator's own tokens. */
    public boolean calibrationServes() {
        return servedCalibration != LearnedCalibration.IDENTITY;
    }

    /** What is saved: the service time's, the calibration's and the repeat memory's statistics. */
    LearnedState state() {
        return new LearnedState(serviceTime.state(), calibration.state(),
                new double[] {learnedLogError, frozenLogError, calibrationServes() ? 1 : 0}, repeats.state());
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
        double[] shadow = state.shadow();
        boolean shadowFits = shadow.length == 3 && (shadow[2] == 0 || shadow[2] == 1)
                && (shadow[2] == 0 || shadow[0] >= 0 && shadow[1] >= 0);
        double[] calibrationBefore = calibration.state();
        if (!shadowFits || !calibration.restore(state.calibration())) {
            serviceTime.restore(serviceBefore);
            return false;
        }
        // A state saved before repeats were remembered has none.
        if (state.repeats().length > 0 && !repeats.restore(state.repeats())) {
            serviceTime.restore(serviceBefore);
            calibration.restore(calibrationBefore);
            return false;
        }
        learnedLogError = shadow[0];
        frozenLogError = shadow[1];
        servedServiceTime = serviceTime.current();
        learnedCalibration = calibration.current();
        servedCalibration = shadow[2] == 1 ? learnedCalibration : LearnedCalibration.IDENTITY;
        learned = serviceTime.observations();
        version++;
        return true;
    }

    static double logRatio(double estimate, double actual) {
        return Math.abs(Math.log(Math.max(estimate, 1e-9) / Math.max(actual, 1e-9)));
    }

    static double running(double mean, double value) {
        if (!Double.isFinite(value)) {
            return mean;
        }
        return Double.isNaN(mean) ? value : mean + ERROR_RATE * (value - mean);
    }

    /**
     * A learner's saved statistics.
     *
     * @param serviceTime the service-time fit's sums
     * @param calibration the calibration's window of answers
     * @param shadow the shadow evaluation: the learned and the frozen running errors, and 1 when the learned map serves
     * @param repeats the repeat memory's entries and its own shadow evaluation; empty when none was saved
     */
    record LearnedState(double[] serviceTime, double[] calibration, double[] shadow, double[] repeats) {}
}
