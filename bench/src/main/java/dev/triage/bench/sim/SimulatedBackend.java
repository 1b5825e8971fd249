package dev.triage.bench.sim;

/**
 * The backend a simulation runs its jobs on: the replay backend's timing model
 * ({@link dev.triage.bench.backend.GenerationEngine}) on a virtual clock. A job spends its prefill in its
 * slot alone, then decodes one token per step with the others in the batch; a step lasts
 * {@code secondsPerToken × (1 + batchSlowdown × (n − 1))} for n decoding jobs. Work given only in
 * seconds is all prefill, so such jobs hold their slot for exactly their service time.
 *
 * @param slots jobs run at once
 * @param secondsPerToken a decoding step for a batch of one: the workload's service-time model's
 *     per-token cost (0 when the jobs carry no tokens)
 * @param batchSlowdown how much each further decoding job slows a step (0: none)
 */
public record SimulatedBackend(int slots, double secondsPerToken, double batchSlowdown) {

    public SimulatedBackend {
        if (slots < 1 || !(secondsPerToken >= 0) || !(batchSlowdown >= 0) || Double.isInfinite(secondsPerToken)
                || Double.isInfinite(batchSlowdown)) {
            throw new IllegalArgumentException("backend of " + slots + " slots, " + secondsPerToken + " s/token, batch slowdown "
                    + batchSlowdown + " (expected: slots >= 1, both finite and >= 0)");
        }
    }

    /** Slots for work given in seconds: each job holds one for its service time, whatever the others do. */
    public static SimulatedBackend slots(int slots) {
        return new SimulatedBackend(slots, 0, 0);
    }

    /** A few words for reports: {@code 4 slots, batch slowdown 5%}. */
    public String describe() {
        return slots + " slot(s)" + (batchSlowdown > 0 ? String.format(java.util.Locale.ROOT, ", batch slowdown %.0f%%", batchSlowdown * 100) : "");
    }
}
