package dev.triage.proxy.scheduler.ewsjf;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Gathers what one trial interval's completed jobs say about the policy in force, per queue, and
 * turns it into the {@link TrialReward} at the interval's end. Confined to the dispatch thread.
 */
final class TrialMeter {

    /** The shortest service time counted, so that a job answered at once does not divide by 0. */
    private static final double MIN_SERVICE_SECONDS = 1e-3;

    private final Map<Object, QueueTally> tallies = new IdentityHashMap<>();
    private int completions;
    private double logSlowdowns;

    private static final class QueueTally {
        int count;
        double sizes;
        double squaredSizes;
        double relativeWaits;
    }

    /**
     * Counts a completed job.
     *
     * @param queue the queue it was sent from (compared by identity)
     * @param size its size b
     * @param costSeconds its cost C(b)
     */
    void completed(Object queue, double size, double costSeconds, double waitSeconds, double serviceSeconds) {
        QueueTally tally = tallies.computeIfAbsent(queue, q -> new QueueTally());
        tally.count++;
        tally.sizes += size;
        tally.squaredSizes += size * size;
        tally.relativeWaits += waitSeconds / costSeconds;
        double service = Math.max(MIN_SERVICE_SECONDS, serviceSeconds);
        logSlowdowns += Math.log((waitSeconds + service) / service);
        completions++;
    }

    int completions() {
        return completions;
    }

    TrialReward reward(int queuesInForce, int maxQueues, RewardWeights weights) {
        double weightedVariation = 0;
        double[] meanWaits = new double[tallies.size()];
        int i = 0;
        for (QueueTally tally : tallies.values()) {
            double mean = tally.sizes / tally.count;
            double variance = Math.max(0, tally.squaredSizes / tally.count - mean * mean);
            weightedVariation += tally.count * (mean > 0 ? Math.sqrt(variance) / mean : 0);
            meanWaits[i++] = tally.relativeWaits / tally.count;
        }
        double compactness = completions == 0 ? 1 : 1 / (1 + weightedVariation / completions);
        double balance = 1 / (1 + coefficientOfVariation(meanWaits));
        double proliferation = (double) queuesInForce / maxQueues;
        double latency = completions == 0 ? 0 : logSlowdowns / completions;
        return TrialReward.of(compactness, balance, proliferation, latency, weights);
    }

    private static double coefficientOfVariation(double[] values) {
        if (values.length < 2) {
            return 0;
        }
        double sum = 0;
        for (double value : values) {
            sum += value;
        }
        double mean = sum / values.length;
        if (mean <= 0) {
            return 0;
        }
        double squares = 0;
        for (double value : values) {
            squares += (value - mean) * (value - mean);
        }
        return Math.sqrt(squares / values.length) / mean;
    }
}
