package dev.triage.proxy.scheduler.ewsjf;

import java.time.Duration;
import java.util.Objects;

/**
 * How EWSJF runs at one backend.
 *
 * @param sizeFeature what a job's size is: its prompt (the paper's) or Triage's estimate
 * @param maxQueues the most queues Refine-and-Prune leaves (bubble queues may add as many again)
 * @param minQueueWidth the size width, in tokens, below which a cluster is not split
 * @param bubbleWidth the widest size range, in tokens, a bubble queue made for a job in a gap takes
 * @param window the latest job sizes Refine-and-Prune partitions
 * @param minSamples the sizes seen before the first partition; until then every job shares one queue
 * @param refineInterval how often the queues are refined from the window
 * @param trialInterval ΔT: how long one set of parameters is tried before the next is chosen
 * @param minTrialCompletions completions a trial needs to be scored; a quieter trial goes on
 * @param tune true to let the meta-optimizer choose Θ; false keeps {@code initialTheta}
 * @param initialTheta the parameters of the first trial
 * @param reward the weights of the meta-optimizer's reward
 * @param seed the seed of the meta-optimizer's random proposals
 */
public record EwsjfSettings(SizeFeature sizeFeature, int maxQueues, double minQueueWidth, double bubbleWidth, int window,
        int minSamples, Duration refineInterval, Duration trialInterval, int minTrialCompletions, boolean tune,
        Theta initialTheta, RewardWeights reward, long seed) {

    /** Trials proposed at random before the Gaussian process proposes. */
    static final int RANDOM_TRIALS = 3;
    /** Trials the Gaussian process models: the latest ones. */
    static final int OPTIMIZER_MEMORY = 40;

    public EwsjfSettings {
        Objects.requireNonNull(sizeFeature, "sizeFeature");
        Objects.requireNonNull(initialTheta, "initialTheta");
        Objects.requireNonNull(reward, "reward");
        check(maxQueues >= 1, "ewsjf-max-queues", maxQueues, ">= 1");
        check(minQueueWidth >= 0 && Double.isFinite(minQueueWidth), "ewsjf-min-queue-width", minQueueWidth, ">= 0");
        check(bubbleWidth > 0 && Double.isFinite(bubbleWidth), "ewsjf-bubble-width", bubbleWidth, "> 0");
        check(window >= 2, "ewsjf-window", window, ">= 2");
        check(minSamples >= 2 && minSamples <= window, "ewsjf-min-samples", minSamples, "2 to the window");
        check(refineInterval.toNanos() > 0, "ewsjf-refine-interval", refineInterval, "> 0");
        check(trialInterval.toNanos() > 0, "ewsjf-trial-interval", trialInterval, "> 0");
        check(minTrialCompletions >= 1, "ewsjf-min-trial-completions", minTrialCompletions, ">= 1");
    }

    /**
     * The defaults: prompt sizes, 32 queues at most (the paper's best), 32-token minimum width,
     * 128-token bubbles, a window of 2,000 jobs partitioned after 64, refined every 5 minutes, Θ tuned
     * over trials of 10 minutes (the paper's ΔT is 10–15) of at least 30 completions.
     */
    public static EwsjfSettings defaults() {
        return new EwsjfSettings(SizeFeature.PROMPT, 32, 32, 128, 2000, 64, Duration.ofMinutes(5), Duration.ofMinutes(10),
                30, true, Theta.DEFAULT, RewardWeights.DEFAULT, 0);
    }

    public EwsjfSettings withSizeFeature(SizeFeature feature) {
        return new EwsjfSettings(feature, maxQueues, minQueueWidth, bubbleWidth, window, minSamples, refineInterval,
                trialInterval, minTrialCompletions, tune, initialTheta, reward, seed);
    }

    public EwsjfSettings withIntervals(Duration refine, Duration trial) {
        return new EwsjfSettings(sizeFeature, maxQueues, minQueueWidth, bubbleWidth, window, minSamples, refine,
                trial, minTrialCompletions, tune, initialTheta, reward, seed);
    }

    public EwsjfSettings withTuning(boolean tuned, Theta initial) {
        return new EwsjfSettings(sizeFeature, maxQueues, minQueueWidth, bubbleWidth, window, minSamples, refineInterval,
                trialInterval, minTrialCompletions, tuned, initial, reward, seed);
    }

    public EwsjfSettings withSeed(long seed) {
        return new EwsjfSettings(sizeFeature, maxQueues, minQueueWidth, bubbleWidth, window, minSamples, refineInterval,
                trialInterval, minTrialCompletions, tune, initialTheta, reward, seed);
    }

    private static void check(boolean valid, String key, Object value, String expected) {
        if (!valid) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: " + expected + ")");
        }
    }
}
