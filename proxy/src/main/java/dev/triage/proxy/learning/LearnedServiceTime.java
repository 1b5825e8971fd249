package dev.triage.proxy.learning;

import dev.triage.proxy.scheduler.ServiceTimeModel;

/**
 * What one backend's requests cost, as learned from its completed requests: a fixed cost, a prefill
 * cost per prompt token, a decode cost per output token, and how much the decode cost grows with each
 * further request running beside it (0 on a serial backend). Immutable: a learner publishes a new one
 * after each observation.
 *
 * @param baseSeconds seconds every request costs, at least 0
 * @param secondsPerPromptToken prefill seconds per prompt token, at least 0
 * @param secondsPerToken decode seconds per output token with nothing else running, at least 0
 * @param growthPerRunning relative slowdown of a decode step for each further running request, at least 0
 */
public record LearnedServiceTime(double baseSeconds, double secondsPerPromptToken, double secondsPerToken,
        double growthPerRunning) {

    /** The model the configured flags describe: no batch slowdown. */
    public static LearnedServiceTime of(ServiceTimeModel configured) {
        return new LearnedServiceTime(configured.baseSeconds(), configured.secondsPerPromptToken(), configured.secondsPerToken(), 0);
    }

    /** Expected seconds to the first token of a request of {@code promptTokens}. */
    public double prefillSeconds(int promptTokens) {
        return Math.max(ServiceTimeModel.MIN_SECONDS, baseSeconds + secondsPerPromptToken * promptTokens);
    }

    /** Expected seconds for a request of these sizes with {@code running} requests (itself included) at once. */
    public double seconds(double promptTokens, double outputTokens, int running) {
        double perToken = secondsPerToken * (1 + growthPerRunning * Math.max(0, running - 1));
        return Math.max(ServiceTimeModel.MIN_SECONDS, baseSeconds + secondsPerPromptToken * promptTokens + perToken * outputTokens);
    }
}
