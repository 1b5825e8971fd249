package dev.triage.proxy.scheduler;

/**
 * Turns expected output tokens into expected seconds of backend time: {@code seconds = base +
 * perToken × tokens}. The base covers the request's fixed cost (prefill, model warm-up); the per-token
 * cost is the backend's decode speed. HRRN's ratio and the starvation timeout are in seconds, so
 * this model is what lets them work with token estimates; the simulator and the replay backend use
 * the same model for their service times.
 *
 * @param baseSeconds seconds every request costs, at least 0
 * @param secondsPerToken seconds per generated token, at least 0
 */
public record ServiceTimeModel(double baseSeconds, double secondsPerToken) {

    /** The smallest expected service time: HRRN divides by it, so it is never 0. */
    public static final double MIN_SECONDS = 1e-3;

    public ServiceTimeModel {
        if (!(baseSeconds >= 0) || !(secondsPerToken >= 0) || baseSeconds + secondsPerToken == 0
                || Double.isInfinite(baseSeconds) || Double.isInfinite(secondsPerToken)) {
            throw new IllegalArgumentException("service time " + baseSeconds + " + " + secondsPerToken
                    + " x tokens (expected: both finite and >= 0, not both 0)");
        }
    }

    public double seconds(double tokens) {
        return Math.max(MIN_SECONDS, baseSeconds + secondsPerToken * tokens);
    }
}
