package dev.triage.bench.sim;

import java.util.Objects;

/**
 * What one job really costs: its class and its service time, plus the prompt it was asked with when
 * the size comes from a real prompt (so that a real estimator can be run on it).
 *
 * @param jobClass the class the results are broken down by ({@code short}, {@code long}, ...)
 * @param serviceSeconds the true service time, positive
 * @param prompt the prompt text, or null when the size was drawn from a distribution
 */
public record JobSize(String jobClass, double serviceSeconds, String prompt) {

    public JobSize {
        Objects.requireNonNull(jobClass, "jobClass");
        if (!(serviceSeconds > 0) || Double.isInfinite(serviceSeconds)) {
            throw new IllegalArgumentException("serviceSeconds: " + serviceSeconds + " (expected: finite, > 0)");
        }
    }

    public static JobSize of(String jobClass, double serviceSeconds) {
        return new JobSize(jobClass, serviceSeconds, null);
    }
}
