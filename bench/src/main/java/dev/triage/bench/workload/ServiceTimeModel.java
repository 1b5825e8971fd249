package dev.triage.bench.workload;

/**
 * How long a backend takes for an answer of a given length: {@code seconds = base + perToken × tokens}.
 * The base covers the fixed cost of a request (prefill, scheduling inside the server); the per-token
 * cost is the decode speed. The simulator turns token sizes and token estimates into seconds with it,
 * and the replay backend generates at these rates.
 *
 * @param baseSeconds seconds every request costs, at least 0
 * @param secondsPerToken seconds per generated token, at least 0
 */
public record ServiceTimeModel(double baseSeconds, double secondsPerToken) {

    /** The smallest service time: the scheduler divides by it (HRRN), so it is never 0. */
    static final double MIN_SECONDS = 1e-3;

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
