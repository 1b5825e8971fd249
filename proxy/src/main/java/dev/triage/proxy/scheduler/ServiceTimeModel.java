package dev.triage.proxy.scheduler;

/**
 * Turns a request's tokens into expected seconds of backend time: {@code prefill = base +
 * perPromptToken × prompt tokens} to the first token, then {@code perToken × output tokens}. The base
 * covers the request's fixed cost (model warm-up, scheduling); the per-prompt-token cost is the
 * backend's prefill speed, the per-token cost its decode speed. HRRN's ratio and the starvation timeout
 * are in seconds, so this model is what lets them work with token estimates; the simulator and the
 * replay backend use the same model for their service times.
 *
 * @param baseSeconds seconds every request costs, at least 0
 * @param secondsPerPromptToken seconds per prompt token, at least 0
 * @param secondsPerToken seconds per generated token, at least 0
 */
public record ServiceTimeModel(double baseSeconds, double secondsPerPromptToken, double secondsPerToken) {

    /** The smallest expected service time: HRRN divides by it, so it is never 0. */
    public static final double MIN_SECONDS = 1e-3;

    public ServiceTimeModel {
        if (!(baseSeconds >= 0) || !(secondsPerPromptToken >= 0) || !(secondsPerToken >= 0) || baseSeconds + secondsPerToken == 0
                || Double.isInfinite(baseSeconds) || Double.isInfinite(secondsPerPromptToken) || Double.isInfinite(secondsPerToken)) {
            throw new IllegalArgumentException("service time " + baseSeconds + " + " + secondsPerPromptToken + " x prompt tokens + "
                    + secondsPerToken + " x tokens (expected: all finite and >= 0, base and per token not both 0)");
        }
    }

    /** A model in which the prompt costs nothing beyond the base. */
    public ServiceTimeModel(double baseSeconds, double secondsPerToken) {
        this(baseSeconds, 0, secondsPerToken);
    }

    /** Seconds for a request whose prompt is unknown or free: {@code base + perToken × tokens}. */
    public double seconds(double tokens) {
        return seconds(0, tokens);
    }

    /** Seconds for a request of {@code promptTokens} that generates {@code tokens}. */
    public double seconds(int promptTokens, double tokens) {
        return Math.max(MIN_SECONDS, baseSeconds + secondsPerPromptToken * promptTokens + secondsPerToken * tokens);
    }

    /** Expected seconds to the first token of a request of {@code promptTokens}: a cost, at least {@link #MIN_SECONDS}. */
    public double prefillSeconds(int promptTokens) {
        return Math.max(MIN_SECONDS, takenPrefillSeconds(promptTokens));
    }

    /**
     * Seconds to the first token that a backend of this speed takes: 0 for one configured to take
     * none. The replay backend times its answers by it; {@link #MIN_SECONDS} is a floor for the
     * scheduler's divisions, not a pause a server makes.
     */
    public double takenPrefillSeconds(int promptTokens) {
        return baseSeconds + secondsPerPromptToken * promptTokens;
    }
}
