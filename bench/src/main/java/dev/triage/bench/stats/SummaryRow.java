package dev.triage.bench.stats;

import dev.triage.bench.stats.LatencyStats.Statistic;
import java.util.EnumMap;
import java.util.List;
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

    /** The row of one policy and class from its statistics in each run (seed). */
    public static SummaryRow over(String policy, String jobClass, List<LatencyStats> runs, double tauFired) {
        Map<Statistic, MeanSd> sojourn = new EnumMap<>(Statistic.class);
        for (Statistic statistic : Statistic.values()) {
            sojourn.put(statistic, MeanSd.of(runs.stream().mapToDouble(run -> run.get(statistic)).toArray()));
        }
        double requests = runs.stream().mapToInt(LatencyStats::count).average().orElseThrow();
        return new SummaryRow(policy, jobClass, requests, sojourn, tauFired);
    }

    public double seconds(Statistic statistic) {
        return sojourn.get(statistic).mean();
    }

    public double sd(Statistic statistic) {
        return sojourn.get(statistic).sd();
    }
}
