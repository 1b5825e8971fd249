package dev.triage.proxy.learning;

import dev.triage.features.PromptFeatures;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.RankingWindow;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Everything Triage learns about one backend's kind of request from its completed requests: the
 * backend's {@link LearnedServiceTime}, its {@link LearnedCalibration} of the estimator's tokens,
 * its {@link RepeatMemory} of what it answered to prompts that come back, and its own order of
 * prompts ({@link RankingAdaptation}).
 * Readers (the request path) take the last published model from any thread with no lock; one thread,
 * the learner's, feeds it. Frozen, it serves the configured model and learns nothing.
 *
 * <p>A shadow evaluation guards the calibration: for every answer, the learned map's estimate and the
 * frozen estimator's are both scored against it before it is learned from (prequential), and the
 * learned map serves only while its running mean |ln(estimate / actual)| is the lower one (it must
 * first beat the frozen one by {@value #SWITCH_MARGIN}, so that the two do not take turns on noise).
 * On a backend whose model answers as the training data did, the frozen estimates keep serving.
 *
 * <p>A second shadow evaluation guards the ranking adaptation. For every answer to a prompt, the
 * estimate the adaptation would serve and the one that serves without it are computed by the same
 * function that serves them, before the answer is learned from, and added to two ranking windows of
 * the last {@value #RANKING_WINDOW} answers (Clairvoyant's accuracy over (short, long) pairs). The
 * adapted estimates serve only while their accuracy beats the other's (by {@value #RANKING_MARGIN}
 * to take over), over a window holding at least {@value #RANKING_MIN_CLASS} short and as many long
 * answers, and their running log error is no higher. Without the adaptation the order is the frozen
 * estimator's: the calibration is monotone.
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
    /** Answers over which the ranking accuracies of the adapted and the frozen order are compared. */
    static final int RANKING_WINDOW = 500;
    /** How much higher the adapted order's ranking accuracy must be before it takes over. */
    static final double RANKING_MARGIN = 0.02;
    /**
     * Short and long answers the ranking window must each hold before the adapted order may serve: an
     * accuracy over pairs made with a handful of short (or long) answers is the luck of those few.
     */
    static final int RANKING_MIN_CLASS = 40;

    private final String key;
    private final String learnedFor;
    private final boolean learning;
    private final ServiceTimeLearner serviceTime;
    private final OnlineCalibration calibration = new OnlineCalibration();
    private final RepeatMemory repeats = new RepeatMemory();
    private final RankingAdaptation adaptation = new RankingAdaptation();
    private RankingWindow frozenRanking = new RankingWindow(RANKING_WINDOW);
    private RankingWindow adaptedRanking = new RankingWindow(RANKING_WINDOW);
    private volatile boolean adaptationServes;
    private volatile double frozenRankingAccuracy = Double.NaN;
    private volatile double adaptedRankingAccuracy = Double.NaN;
    private double adaptedLogError = Double.NaN;
    private double unadaptedLogError = Double.NaN;
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
     * the calibrated estimate, corrected by this backend's own order where the ranking adaptation
     * serves, and blended with the prompt's past answers when it is a repeat.
     *
     * @param features what the estimator read, read only while the adaptation serves
     * @param fingerprint the prompt's {@link PromptFingerprint}, when it has one
     */
    public double tokens(double frozenTokens, PromptFeatures features, OptionalLong fingerprint, OptionalInt outputCap) {
        double calibrated = servedCalibration.tokens(frozenTokens);
        Optional<float[]> read = adaptationServes ? features.get() : Optional.empty();
        double model = capped(read.isPresent() ? adapted(calibrated, read.get(), adaptation.current()) : calibrated, outputCap);
        return fingerprint.isPresent() ? capped(repeats.tokens(fingerprint.getAsLong(), model), outputCap) : model;
    }

    /**
     * What a request is expected to cost this backend by the models as they are now: its tokens by
     * {@link #tokens}, and its seconds by the served service time with {@code running} requests
     * decoding together.
     */
    public JobCost cost(double frozenTokens, PromptFeatures features, OptionalLong fingerprint, OptionalInt outputCap, int promptTokens,
            int running) {
        double tokens = tokens(frozenTokens, features, fingerprint, outputCap);
        LearnedServiceTime served = servedServiceTime;
        return new JobCost(promptTokens, tokens, served.prefillSeconds(promptTokens), served.seconds(promptTokens, tokens, running));
    }

    /** The adaptation's estimate for a request whose estimate is {@code calibrated} without it. */
    private static double adapted(double calibrated, float[] features, RankingAdaptation.Correction correction) {
        double logBase = Math.log(Math.max(calibrated, 1e-9));
        return Math.exp(logBase + correction.score(RankingAdaptation.input(logBase, features)));
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

    /**
     * Clairvoyant's ranking accuracy of the estimates that serve without the ranking adaptation (the
     * frozen estimator's order) over the last {@value #RANKING_WINDOW} answers to prompts, each
     * estimate made before its answer was learned from; NaN before a (short, long) pair.
     */
    public double frozenRankingAccuracy() {
        return frozenRankingAccuracy;
    }

    /** The same for the estimates the ranking adaptation would serve, served or not. */
    public double adaptedRankingAccuracy() {
        return adaptedRankingAccuracy;
    }

    /** Whether the ranking adaptation's estimates serve now. */
    public boolean adaptationServes() {
        return adaptationServes;
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
        double calibrated = servedCalibration.tokens(request.frozenTokens());
        double modelTokens = calibrated;
        if (request.teachesLength() && request.features().isPresent()) {
            modelTokens = judgeAdaptation(request, calibrated, request.features().get());
        }
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

    /**
     * Scores the estimates with and without the ranking adaptation for a completed request, each as
     * {@link #tokens} would serve it now, in their ranking windows; decides which serves; and teaches
     * the adaptation the answer.
     *
     * @param calibrated what serves for the request without the adaptation
     * @return what served for the request, as the repeat memory's shadow sees it
     */
    private double judgeAdaptation(CompletedRequest request, double calibrated, float[] features) {
        double actual = Math.max(1, request.actualTokens());
        double unadapted = capped(calibrated, request.outputCap());
        double adapted = capped(adapted(calibrated, features, adaptation.current()), request.outputCap());
        double served = adaptationServes ? adapted : unadapted;
        frozenRanking.add(unadapted, actual);
        adaptedRanking.add(adapted, actual);
        frozenRankingAccuracy = frozenRanking.accuracy();
        adaptedRankingAccuracy = adaptedRanking.accuracy();
        adaptedLogError = running(adaptedLogError, logRatio(adapted, actual));
        unadaptedLogError = running(unadaptedLogError, logRatio(unadapted, actual));
        double margin = adaptationServes ? 0 : RANKING_MARGIN;
        adaptationServes = frozenRanking.rarerClassCount() >= RANKING_MIN_CLASS
                && adaptedRankingAccuracy > frozenRankingAccuracy + margin && adaptedLogError <= unadaptedLogError;
        adaptation.learn(Math.log(Math.max(calibrated, 1e-9)), features, request.actualTokens());
        return served;
    }

    /**
     * Drops the calibration, the ranking adaptation and their shadow evaluations, for an estimator
     * whose model changed; the service time stays.
     */
    void forgetCalibration() {
        adaptation.forget();
        adaptationServes = false;
        frozenRanking = new RankingWindow(RANKING_WINDOW);
        adaptedRanking = new RankingWindow(RANKING_WINDOW);
        frozenRankingAccuracy = Double.NaN;
        adaptedRankingAccuracy = Double.NaN;
        adaptedLogError = Double.NaN;
        unadaptedLogError = Double.NaN;
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

    /** What is saved: the service time's, the calibration's, the repeat memory's and the ranking adaptation's statistics. */
    LearnedState state() {
        return new LearnedState(serviceTime.state(), calibration.state(),
                new double[] {learnedLogError, frozenLogError, calibrationServes() ? 1 : 0}, repeats.state(), adaptation.state(),
                rankingShadow());
    }

    /**
     * The ranking adaptation's shadow evaluation: 1 when the adapted order serves, its running log
     * error and the other's, the length of the frozen window's state, then both windows' states.
     */
    private double[] rankingShadow() {
        double[] frozen = frozenRanking.state();
        double[] adapted = adaptedRanking.state();
        double[] shadow = new double[4 + frozen.length + adapted.length];
        shadow[0] = adaptationServes ? 1 : 0;
        shadow[1] = adaptedLogError;
        shadow[2] = unadaptedLogError;
        shadow[3] = frozen.length;
        System.arraycopy(frozen, 0, shadow, 4, frozen.length);
        System.arraycopy(adapted, 0, shadow, 4 + frozen.length, adapted.length);
        return shadow;
    }

    /** Restores {@link #rankingShadow()}; false, changing nothing, when it does not fit. */
    private boolean restoreRankingShadow(double[] shadow) {
        if (shadow.length < 4 || shadow[0] != 0 && shadow[0] != 1 || !(shadow[3] >= 0 && shadow[3] <= shadow.length - 4)
                || shadow[3] != Math.rint(shadow[3]) || shadow[1] < 0 || shadow[2] < 0) {
            return false;
        }
        int frozenLength = (int) shadow[3];
        Optional<RankingWindow> frozen = RankingWindow.restored(RANKING_WINDOW, Arrays.copyOfRange(shadow, 4, 4 + frozenLength));
        Optional<RankingWindow> adapted = RankingWindow.restored(RANKING_WINDOW, Arrays.copyOfRange(shadow, 4 + frozenLength, shadow.length));
        if (frozen.isEmpty() || adapted.isEmpty()) {
            return false;
        }
        frozenRanking = frozen.get();
        adaptedRanking = adapted.get();
        frozenRankingAccuracy = frozenRanking.accuracy();
        adaptedRankingAccuracy = adaptedRanking.accuracy();
        adaptedLogError = shadow[1];
        unadaptedLogError = shadow[2];
        adaptationServes = shadow[0] == 1;
        return true;
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
        // A state saved before repeats were remembered has none, and one saved before the ranking adaptation none of it.
        double[] repeatsBefore = repeats.state();
        double[] rankingBefore = adaptation.state();
        if (state.repeats().length > 0 && !repeats.restore(state.repeats())
                || state.ranking().length > 0 && !adaptation.restore(state.ranking())
                || state.rankingShadow().length > 0 && !restoreRankingShadow(state.rankingShadow())) {
            serviceTime.restore(serviceBefore);
            calibration.restore(calibrationBefore);
            repeats.restore(repeatsBefore);
            adaptation.restore(rankingBefore);
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
     * @param ranking the ranking adaptation's weights and standardization; empty when none was saved
     * @param rankingShadow the ranking adaptation's shadow evaluation; empty when none was saved
     */
    record LearnedState(double[] serviceTime, double[] calibration, double[] shadow, double[] repeats, double[] ranking,
            double[] rankingShadow) {}
}
