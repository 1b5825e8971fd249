package dev.triage.bench.sim;

import dev.triage.bench.sim.LatencyStats.Statistic;
import java.util.Map;

/**
 * One policy and class of an experiment: sojourn-time statistics averaged over seeds, with their
 * spread, and how often the starvation timeout fired.
 *
 * @param requests jobs of this class per run (mean over seeds)
 * @param sojourn each statistic's mean and standard deviation over seeds, in seconds
 * @param tauFired jobs of this class sent by τ instead of the policy, per run (mean over seeds)
 */
public record SummaryRow(String policy, String jobClass, double requests, Map<Statistic, MeanSd> sojourn, double tauFired) {

    public SummaryRow {
        sojourn = Map.copyOf(sojourn);
    }

    public double seconds(Statistic statistic) {
        return sojourn.get(statistic).mean();
    }

    public double sd(Statistic statistic) {
        return sojourn.get(statistic).sd();
    }
}
