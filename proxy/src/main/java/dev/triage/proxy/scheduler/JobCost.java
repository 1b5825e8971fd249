package dev.triage.proxy.scheduler;

/**
 * What a job is expected to cost the backend, as the caller's estimator and service-time model see it
 * on arrival: the prompt it sends, the answer it expects, and the seconds both take. Policies that
 * order by the answer (sjf, hrrn) read {@code expectedSeconds}; policies that group jobs by their
 * prompt (ewsjf) read {@code promptTokens} and {@code prefillSeconds}.
 *
 * <pre>{@code
 * scheduler.submit(request, 0, new JobCost(420, 130, 0.58, 3.18));
 * scheduler.submit(request, 0, JobCost.ofAnswer(130, 3.1));   // the prompt is unknown
 * }</pre>
 *
 * @param promptTokens the prompt's length in tokens, 0 when unknown (an audio upload)
 * @param expectedTokens the expected answer length in tokens, at least 0
 * @param prefillSeconds the expected time to the first token (prefill and fixed costs); positive
 * @param expectedSeconds the expected service time S, first token to last included; positive
 */
public record JobCost(int promptTokens, double expectedTokens, double prefillSeconds, double expectedSeconds) {

    public JobCost {
        if (promptTokens < 0) {
            throw new IllegalArgumentException("promptTokens: " + promptTokens + " (expected: >= 0)");
        }
        if (!(expectedTokens >= 0) || Double.isInfinite(expectedTokens)) {
            throw new IllegalArgumentException("expectedTokens: " + expectedTokens + " (expected: finite, >= 0)");
        }
        if (!(prefillSeconds > 0) || Double.isInfinite(prefillSeconds)) {
            throw new IllegalArgumentException("prefillSeconds: " + prefillSeconds + " (expected: finite, > 0)");
        }
        if (!(expectedSeconds > 0) || Double.isInfinite(expectedSeconds)) {
            throw new IllegalArgumentException("expectedSeconds: " + expectedSeconds + " (expected: finite, > 0)");
        }
    }

    /**
     * The cost of a job whose prompt is unknown: no prompt tokens, and the whole service time counted
     * as its time to the first token, the most a prefill can take.
     */
    public static JobCost ofAnswer(double expectedTokens, double expectedSeconds) {
        return new JobCost(0, expectedTokens, expectedSeconds, expectedSeconds);
    }
}
