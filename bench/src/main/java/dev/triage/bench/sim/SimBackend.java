package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.ServiceTimeModel;

/**
 * The simulated backend: how many jobs it runs at once, how a job's service time splits into a
 * prefill and its tokens, and what resuming a paused job costs.
 *
 * <p>A job of service time S has {@code round((S − base) / perToken)} tokens (at least 1), each taking
 * an equal share of S − base after a prefill of {@code base}, so a job that is never paused takes
 * exactly S. A resumed job first prefills again its prompt (the service-time model's base) and the
 * tokens it had generated, at {@code prefillTokensPerSecond}, unless its KV cache survived: with
 * {@code spareSlots} cache slots beyond the running jobs' (llama.cpp's {@code --parallel} above
 * Triage's {@code --max-concurrency}, or vLLM's prefix cache), the caches of the {@code spareSlots}
 * most recently paused jobs survive, and such a job resumes with no prefill at all.
 *
 * @param slots jobs run at once
 * @param serviceTime seconds = base + per-token × tokens: how the workload's seconds map to tokens
 * @param prefillTokensPerSecond how fast a resume reads the text generated so far
 * @param spareSlots KV caches kept for paused jobs, 0 for none
 */
public record SimBackend(int slots, ServiceTimeModel serviceTime, double prefillTokensPerSecond, int spareSlots) {

    /** The service-time model of the simulator's defaults: 0.1 s per request, 20 ms per token. */
    public static final ServiceTimeModel DEFAULT_SERVICE_TIME = new ServiceTimeModel(0.1, 0.02);

    /** Prefill speed of the defaults: 1,000 tokens a second, 20 times the decode speed. */
    public static final double DEFAULT_PREFILL_RATE = 1000;

    public SimBackend {
        if (slots < 1) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= 1)");
        }
        if (!(serviceTime.secondsPerToken() > 0)) {
            throw new IllegalArgumentException("seconds per token: " + serviceTime.secondsPerToken() + " (expected: > 0)");
        }
        if (!(prefillTokensPerSecond > 0)) {
            throw new IllegalArgumentException("prefill rate: " + prefillTokensPerSecond + " (expected: > 0 tokens/s)");
        }
        if (spareSlots < 0) {
            throw new IllegalArgumentException("spare slots: " + spareSlots + " (expected: >= 0)");
        }
    }

    /** {@code slots} slots with the default service-time model and prefill rate, no spare cache. */
    public static SimBackend of(int slots) {
        return new SimBackend(slots, DEFAULT_SERVICE_TIME, DEFAULT_PREFILL_RATE, 0);
    }

    /** The tokens of a job of {@code seconds}: at least 1. */
    long tokens(double seconds) {
        return Math.max(1, Math.round((seconds - serviceTime.baseSeconds()) / serviceTime.secondsPerToken()));
    }

    /** Seconds before a job's first token on its first run: the base, or all of a job shorter than it. */
    double firstPrefillSeconds(double seconds) {
        return Math.min(serviceTime.baseSeconds(), seconds);
    }

    /** Seconds a resume of a job that had generated {@code tokens} spends before its next token. */
    double resumePrefillSeconds(long tokens, boolean cached) {
        return cached ? 0 : serviceTime.baseSeconds() + tokens / prefillTokensPerSecond;
    }
}
