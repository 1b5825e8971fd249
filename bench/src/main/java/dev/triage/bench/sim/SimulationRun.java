package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats;
import java.util.List;

/**
 * The outcome of one simulated run.
 *
 * @param completed every job, in order of completion
 * @param starvationPromotions how many dispatches τ decided instead of the policy
 */
public record SimulationRun(PolicyVariant variant, int slots, List<CompletedRequest> completed, long starvationPromotions) {

    public SimulationRun {
        completed = List.copyOf(completed);
    }

    /** Latency statistics of the jobs of one class, or of all jobs for {@code "all"}. */
    public LatencyStats sojourn(String jobClass) {
        return LatencyStats.of(completed.stream()
                .filter(c -> JobClasses.ALL.equals(jobClass) || c.request().jobClass().equals(jobClass))
                .mapToDouble(CompletedRequest::sojournSeconds)
                .toArray());
    }

    /** How many jobs of a class (or {@code "all"}) τ sent ahead of the policy's choice. */
    public long starvationPromotions(String jobClass) {
        if (JobClasses.ALL.equals(jobClass)) {
            return starvationPromotions;
        }
        return completed.stream().filter(c -> c.starvationPromoted() && c.request().jobClass().equals(jobClass)).count();
    }

    public double meanSojournSeconds() {
        return sojourn(JobClasses.ALL).mean();
    }
}
