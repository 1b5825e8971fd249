package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.features.Prompt;
import dev.triage.features.PromptFeatures;
import dev.triage.features.PromptTokens;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.evaluation.RankingMetrics;
import dev.triage.model.training.IsotonicCalibration;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.CompletedRequest;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;

/**
 * Replays a stream of answered requests through the proxy's own {@link BackendLearner}, one at a time
 * as a serial backend would complete them: each request's estimate is taken before its answer is
 * learned from (prequential), beside the frozen estimator's. The backend's time for each answer is the
 * replay backend's timing model ({@code base + perToken × tokens}) plus what a real machine adds: a
 * few milliseconds of timer lateness and network (exponential, mean {@value #JITTER_SECONDS} s) and
 * now and then a stall.
 *
 * <pre>{@code
 * Figures figures = PrequentialReplay.run(stream, new ServiceTimeModel(0.05, 0.02), new ServiceTimeModel(0.5, 0.02), 1);
 * }</pre>
 */
public final class PrequentialReplay {

    /** Requests after which the service-time model is compared with the backend's configured speed. */
    public static final int SERVICE_TIME_CHECKPOINT = 200;
    static final double JITTER_SECONDS = 0.003;
    static final int STALL_EVERY = 25;
    static final double STALL_FACTOR = 5;

    private PrequentialReplay() {}

    /**
     * One request of the stream.
     *
     * @param frozenTokens the shipped estimator's estimate
     * @param promptTokens the prompt's length in tokens (approximately)
     * @param actualTokens the answer's length
     * @param prompt what the estimator read
     */
    public record Answered(double frozenTokens, double promptTokens, long actualTokens, Prompt prompt) {}

    /**
     * What the replay found, over the last third of the stream for the estimates.
     *
     * @param requests the stream's length
     * @param frozenMedianLogError median |ln(estimate / actual)| of the frozen estimator
     * @param learnedMedianLogError the same for the learned estimates
     * @param hindsightMedianLogError the same for the best monotone map of the frozen estimates, fitted
     *     on these very answers: about the least error that any recalibration of the estimator's
     *     order could reach, and one that no calibration learned before the answers can count on
     * @param frozenRankingAccuracy ranking accuracy ((short, long) pairs) of the frozen estimates
     * @param learnedRankingAccuracy the same for the learned estimates
     * @param unadaptedRankingAccuracy the same for the learned estimates without the ranking adaptation
     * @param serviceTime the learned service time after {@code serviceTimeRequests} requests
     * @param serviceTimeRequests {@link #SERVICE_TIME_CHECKPOINT}, or the whole of a shorter stream
     * @param adaptedShare the share of the estimates whose order the ranking adaptation served
     */
    public record Figures(int requests, double frozenMedianLogError, double learnedMedianLogError, double hindsightMedianLogError,
            double frozenRankingAccuracy, double learnedRankingAccuracy, double unadaptedRankingAccuracy, LearnedServiceTime serviceTime,
            int serviceTimeRequests, double adaptedShare) {

        public double logErrorRatio() {
            return learnedMedianLogError / frozenMedianLogError;
        }

        public String describe() {
            return String.format(Locale.ROOT, "%d requests; last third: median |ln(est/actual)| frozen %.3f, learned %.3f (%.2f×),"
                    + " the best monotone map of the frozen estimates in hindsight %.3f (%.2f×);"
                    + " ranking accuracy frozen %.3f, learned %.3f, learned without the ranking adaptation %.3f (it served %.0f%%);"
                    + " after %d: base %.4f s, %.5f s/token, %.6f s/prompt token",
                    requests, frozenMedianLogError, learnedMedianLogError, logErrorRatio(), hindsightMedianLogError,
                    hindsightMedianLogError / frozenMedianLogError, frozenRankingAccuracy,
                    learnedRankingAccuracy, unadaptedRankingAccuracy, 100 * adaptedShare, serviceTimeRequests, serviceTime.baseSeconds(), serviceTime.secondsPerToken(),
                    serviceTime.secondsPerPromptToken());
        }
    }

    /**
     * The answers {@code model} gave, in an order set by {@code seed} (arrivals do not come sorted),
     * each with {@code estimator}'s estimate of its prompt.
     */
    public static List<Answered> stream(List<PromptAnswer> answers, String model, JobEstimator<Prompt> estimator, long seed) {
        List<PromptAnswer> chosen = new ArrayList<>();
        for (PromptAnswer answer : answers) {
            if (answer.answeringModel().equals(model)) {
                chosen.add(answer);
            }
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("no answers of " + model);
        }
        Collections.shuffle(chosen, new Random(seed));
        return inOrder(chosen, estimator);
    }

    /**
     * A workload's chat entries in the file's order (a log of traffic is in the order it came; shuffle
     * a dataset before), each with {@code estimator}'s estimate of its prompt.
     *
     * @throws IllegalArgumentException when an entry is an audio file: its size is read from the
     *     upload, with nothing to learn
     */
    public static List<Answered> ofWorkload(List<WorkloadEntry> entries, JobEstimator<Prompt> estimator) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("the workload has no entry");
        }
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).audio().isPresent()) {
                throw new IllegalArgumentException("entry " + (i + 1) + " is an audio file (expected: chat prompts only, the"
                        + " learner learns answer lengths)");
            }
        }
        return answered(entries.stream().map(entry -> new Prompt(entry.prompt())).toList(),
                entries.stream().mapToLong(WorkloadEntry::answerTokens).toArray(), estimator);
    }

    /** {@code answers} in their order (a feedback log's, as they came), each with {@code estimator}'s estimate of its prompt. */
    public static List<Answered> inOrder(List<PromptAnswer> answers, JobEstimator<Prompt> estimator) {
        return answered(answers.stream().map(PromptAnswer::request).toList(), answers.stream().mapToLong(PromptAnswer::answerTokens).toArray(),
                estimator);
    }

    private static List<Answered> answered(List<Prompt> prompts, long[] answerTokens, JobEstimator<Prompt> estimator) {
        List<Estimate> estimates = estimator.estimateAll(prompts);
        List<Answered> stream = new ArrayList<>(prompts.size());
        for (int i = 0; i < prompts.size(); i++) {
            Prompt prompt = prompts.get(i);
            stream.add(new Answered(estimates.get(i).expectedTokens(), PromptTokens.ofChars(prompt.conversationChars()), answerTokens[i],
                    prompt));
        }
        return stream;
    }

    /**
     * @param backendSpeed the replay backend's configured prefill and per-token seconds
     * @param flags the configured service time: the learner's prior
     * @param seed the jitter's random stream
     */
    public static Figures run(List<Answered> stream, ServiceTimeModel backendSpeed, ServiceTimeModel flags, long seed) {
        BackendLearner learner = new BackendLearner("replay/chat", "replay", LearnedServiceTime.of(flags), true);
        Random random = new Random(seed);
        int n = stream.size();
        double[] learned = new double[n];
        double[] unadapted = new double[n];
        boolean[] adapted = new boolean[n];
        LearnedServiceTime atCheckpoint = learner.serviceTime();
        for (int i = 0; i < n; i++) {
            Answered request = stream.get(i);
            adapted[i] = learner.adaptationServes();
            PromptFeatures features = PromptFeatures.of(request.prompt());
            learned[i] = learner.tokens(request.frozenTokens(), features, OptionalLong.empty(), OptionalInt.empty());
            unadapted[i] = learner.tokens(request.frozenTokens(), PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty());
            double seconds = backendSpeed.seconds(request.actualTokens()) - JITTER_SECONDS * Math.log(1 - random.nextDouble());
            if (i % STALL_EVERY == STALL_EVERY - 1) {
                seconds *= STALL_FACTOR;
            }
            learner.learn(new CompletedRequest(request.frozenTokens(), OptionalInt.empty(), request.promptTokens(),
                    request.actualTokens(), 1, seconds, OptionalLong.empty(), false, features.get()));
            if (i + 1 == Math.min(SERVICE_TIME_CHECKPOINT, n)) {
                atCheckpoint = learner.serviceTime();
            }
        }
        int from = n - n / 3;
        double[] frozen = new double[n - from];
        double[] served = new double[n - from];
        double[] calibrated = new double[n - from];
        double[] actual = new double[n - from];
        int adaptedCount = 0;
        for (int i = from; i < n; i++) {
            adaptedCount += adapted[i] ? 1 : 0;
            frozen[i - from] = stream.get(i).frozenTokens();
            served[i - from] = learned[i];
            calibrated[i - from] = unadapted[i];
            actual[i - from] = stream.get(i).actualTokens();
        }
        return new Figures(n, medianLogError(frozen, actual), medianLogError(served, actual), hindsightMedianLogError(frozen, actual),
                RankingMetrics.rankingAccuracy(frozen, actual), RankingMetrics.rankingAccuracy(served, actual), RankingMetrics.rankingAccuracy(calibrated, actual), atCheckpoint,
                Math.min(SERVICE_TIME_CHECKPOINT, n), (double) adaptedCount / (n - from));
    }

    /**
     * The median log error of the least-squares isotonic regression of the answers' log lengths on
     * the estimates, fitted on the answers it is scored on.
     */
    static double hindsightMedianLogError(double[] estimates, double[] actual) {
        double[] logActual = new double[actual.length];
        for (int i = 0; i < actual.length; i++) {
            logActual[i] = Math.log(Math.max(actual[i], 1));
        }
        double[] fitted = IsotonicCalibration.fitted(estimates, logActual);
        double[] errors = new double[fitted.length];
        for (int i = 0; i < errors.length; i++) {
            errors[i] = Math.abs(fitted[i] - logActual[i]);
        }
        return LatencyStats.of(errors).p50();
    }

    static double medianLogError(double[] estimates, double[] actual) {
        double[] errors = new double[estimates.length];
        for (int i = 0; i < errors.length; i++) {
            errors[i] = Math.abs(Math.log(Math.max(estimates[i], 1) / Math.max(actual[i], 1)));
        }
        return LatencyStats.of(errors).p50();
    }
}
