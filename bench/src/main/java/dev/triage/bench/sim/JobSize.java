package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.Objects;

/**
 * What one job really costs: its class and its service time, and, when the size comes from real
 * tokens, its prompt and answer lengths and its time to the first token (so that a batched backend
 * can decode it token by token, and policies that read prompts can see them), plus the prompt text
 * when there is one (so that a real estimator can be run on it).
 *
 * @param jobClass the class the results are broken down by ({@code short}, {@code long}, ...)
 * @param serviceSeconds the true service time on a backend running it alone, positive
 * @param prompt the prompt text, or null when the size was drawn from a distribution
 * @param promptTokens the prompt's length in tokens, 0 when unknown
 * @param outputTokens the answer's length in tokens; 0 for work given only in seconds
 * @param prefillSeconds the time to the first token, at most {@code serviceSeconds}
 */
public record JobSize(String jobClass, double serviceSeconds, String prompt, int promptTokens, int outputTokens,
        double prefillSeconds) {

    public JobSize {
        Objects.requireNonNull(jobClass, "jobClass");
        if (!(serviceSeconds > 0) || Double.isInfinite(serviceSeconds)) {
            throw new IllegalArgumentException("serviceSeconds: " + serviceSeconds + " (expected: finite, > 0)");
        }
        if (promptTokens < 0 || outputTokens < 0 || !(prefillSeconds > 0) || prefillSeconds > serviceSeconds) {
            throw new IllegalArgumentException("prompt " + promptTokens + " tokens, answer " + outputTokens + " tokens, prefill "
                    + prefillSeconds + " s of " + serviceSeconds + " s (expected: tokens >= 0, 0 < prefill <= service)");
        }
    }

    /** Work given only in seconds: no tokens, all of it before the first token. */
    public static JobSize of(String jobClass, double serviceSeconds) {
        return new JobSize(jobClass, serviceSeconds, null, 0, 0, serviceSeconds);
    }

    /** A request of {@code promptTokens} that generates {@code outputTokens} on a backend of the given speed. */
    public static JobSize ofTokens(String jobClass, int promptTokens, int outputTokens, ServiceTimeModel speed, String prompt) {
        return new JobSize(jobClass, speed.seconds(promptTokens, outputTokens), prompt, promptTokens, outputTokens,
                Math.min(speed.prefillSeconds(promptTokens), speed.seconds(promptTokens, outputTokens)));
    }
}
