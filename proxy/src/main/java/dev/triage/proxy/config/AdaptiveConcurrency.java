package dev.triage.proxy.config;

/**
 * The bounds within which {@code --max-concurrency auto} looks for how many requests a batched
 * backend should run at once ({@link dev.triage.proxy.scheduler.ConcurrencyLimiter}).
 *
 * @param min the fewest, at least 1
 * @param max the most: at most what the backend itself runs at once (vLLM's {@code --max-num-seqs},
 *     llama-server's {@code --parallel})
 */
public record AdaptiveConcurrency(int min, int max) {

    /** {@code auto} alone: 1 to 64. */
    public static final AdaptiveConcurrency DEFAULT = new AdaptiveConcurrency(1, 64);
}
