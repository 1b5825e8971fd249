package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.ServiceTimeModel;

/**
 * The backend a simulation runs its jobs on: the replay backend's timing model
 * ({@link dev.triage.bench.backend.GenerationEngine}) on a virtual clock. A job spends its prefill in its
 * slot alone, then decodes one token per step with the others in the batch; a step lasts
 * {@code secondsPerToken × (1 + batchSlowdown × (n − 1))} for n decoding jobs. Work given only in
 * seconds is all prefill, so such jobs hold their slot for exactly their service time.
 *
 * <p>Under a preemptive policy ({@code laps}, the {@code oracle-srpt} bound) jobs run token by token
 * instead, since pauses cut them between tokens: a job of service time S has
 * {@code round((S − base) / perToken)} tokens (at least 1), each taking an equal share of S − base after
 * a prefill of {@code base}, so a job that is never paused takes exactly S. A resumed job first
 * prefills again its prompt (the base) and the tokens it had generated, at
 * {@code prefillTokensPerSecond}, unless its KV cache survived: with {@code spareSlots} cache slots
 * beyond the running jobs' (llama.cpp's {@code --parallel} above Triage's {@code --max-concurrency},
 * or vLLM's prefix cache), the caches of the {@code spareSlots} most recently paused jobs survive, and
 * such a job resumes with no prefill at all. Those runs model no batch slowdown. Jobs that carry
 * their tokens run on the engine under a preemptive policy too ({@link EnginePreemption}), their own
 * prompt's prefill read again on a resume, with the batch slowdown.
 *
 * @param slots jobs run at once
 * @param secondsPerToken a decoding step for a batch of one: the workload's service-time model's
 *     per-token cost (0 when the jobs carry no tokens)
 * @param batchSlowdown how much each further decoding job slows a step (0: none)
 * @param baseSeconds the service-time model's seconds per request: a preemptive run's prefill
 * @param prefillTokensPerSecond how fast a resume reads the text generated so far
 * @param spareSlots KV caches kept for paused jobs, 0 for none
 */
public record SimulatedBackend(int slots, double secondsPerToken, double batchSlowdown, double baseSeconds,
        double prefillTokensPerSecond, int spareSlots) {

    /** The service-time model of the simulator's defaults: 0.1 s per request, 20 ms per token. */
    public static final ServiceTimeModel DEFAULT_SERVICE_TIME = new ServiceTimeModel(0.1, 0.02);

    /** Prefill speed of the defaults: 1,000 tokens a second, 20 times the decode speed. */
    public static final double DEFAULT_PREFILL_RATE = 1000;

    public SimulatedBackend {
        if (slots < 1 || !(secondsPerToken >= 0) || !(batchSlowdown >= 0) || Double.isInfinite(secondsPerToken)
                || Double.isInfinite(batchSlowdown)) {
            throw new IllegalArgumentException("backend of " + slots + " slots, " + secondsPerToken + " s/token, batch slowdown "
                    + batchSlowdown + " (expected: slots >= 1, both finite and >= 0)");
        }
        if (!(baseSeconds >= 0) || Double.isInfinite(baseSeconds)) {
            throw new IllegalArgumentException("base seconds: " + baseSeconds + " (expected: finite, >= 0)");
        }
        if (!(prefillTokensPerSecond > 0)) {
            throw new IllegalArgumentException("prefill rate: " + prefillTokensPerSecond + " (expected: > 0 tokens/s)");
        }
        if (spareSlots < 0) {
            throw new IllegalArgumentException("spare slots: " + spareSlots + " (expected: >= 0)");
        }
    }

    /** A backend with no base cost, the default prefill rate and no spare cache. */
    public SimulatedBackend(int slots, double secondsPerToken, double batchSlowdown) {
        this(slots, secondsPerToken, batchSlowdown, 0, DEFAULT_PREFILL_RATE, 0);
    }

    /** Slots for work given in seconds: each job holds one for its service time, whatever the others do. */
    public static SimulatedBackend slots(int slots) {
        return new SimulatedBackend(slots, 0, 0);
    }

    /**
     * {@code slots} slots of the default service-time model and prefill rate, no batch slowdown and no
     * spare cache: what preemptive runs are measured on unless told otherwise.
     */
    public static SimulatedBackend of(int slots) {
        return new SimulatedBackend(slots, DEFAULT_SERVICE_TIME.secondsPerToken(), 0, DEFAULT_SERVICE_TIME.baseSeconds(),
                DEFAULT_PREFILL_RATE, 0);
    }

    /** This backend with {@code spareSlots} KV caches kept for paused jobs. */
    public SimulatedBackend withSpareSlots(int spare) {
        return new SimulatedBackend(slots, secondsPerToken, batchSlowdown, baseSeconds, prefillTokensPerSecond, spare);
    }

    /** A few words for reports: {@code 4 slots, batch slowdown 5%}. */
    public String describe() {
        return slots + " slot(s)" + (batchSlowdown > 0 ? String.format(java.util.Locale.ROOT, ", batch slowdown %.0f%%", batchSlowdown * 100) : "");
    }

    /** The tokens of a job of {@code seconds} in a preemptive run: at least 1. */
    long tokens(double seconds) {
        return Math.max(1, Math.round((seconds - baseSeconds) / secondsPerToken));
    }

    /** Seconds before a job's first token on its first run: the base, or all of a job shorter than it. */
    double firstPrefillSeconds(double seconds) {
        return Math.min(baseSeconds, seconds);
    }

    /** Seconds a resume of a job that had generated {@code tokens} spends before its next token. */
    double resumePrefillSeconds(long tokens, boolean cached) {
        return resumePrefillSeconds(baseSeconds, tokens, cached);
    }

    /**
     * Seconds a resume of a job whose prompt takes {@code promptPrefillSeconds} to read, and that had
     * generated {@code tokens}, spends before its next token: none when its cache survived.
     */
    double resumePrefillSeconds(double promptPrefillSeconds, long tokens, boolean cached) {
        return cached ? 0 : promptPrefillSeconds + tokens / prefillTokensPerSecond;
    }
}
