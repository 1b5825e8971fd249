package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.proxy.scheduler.ewsjf.Trial;
import dev.triage.proxy.scheduler.ewsjf.TrialReward;
import java.util.List;

/**
 * The outcome of one simulated run.
 *
 * @param completed every job, in order of completion
 * @param starvationPromotions how many dispatches τ decided instead of the policy
 * @param pauses how many times a running job was paused
 * @param resumes how many dispatches resumed a paused job
 * @param reprefilledTokens tokens the resumed jobs had generated, which the backend read again (or found cached)
 * @param trials the meta-optimizer's scored trials, in order (ewsjf with tuning; empty otherwise)
 * @param openTrial the reward of the trial still open when the run ended (ewsjf with tuning; null otherwise)
 */
public record SimulationRun(PolicyVariant variant, int slots, List<CompletedRequest> completed, long starvationPromotions,
        long pauses, long resumes, long reprefilledTokens, List<Trial> trials, TrialReward openTrial) {

    public SimulationRun {
        completed = List.copyOf(completed);
        trials = List.copyOf(trials);
    }

    /** Latency statistics of the jobs of one class, or of all jobs for {@code "all"}. */
    public LatencyStats sojourn(String jobClass) {
        return LatencyStats.of(ofClass(jobClass).mapToDouble(CompletedRequest::sojournSeconds).toArray());
    }

    /** Time-to-first-token statistics of the jobs of one class, or of all jobs for {@code "all"}. */
    public LatencyStats timeToFirstToken(String jobClass) {
        return LatencyStats.of(ofClass(jobClass).mapToDouble(CompletedRequest::timeToFirstTokenSeconds).toArray());
    }

    /** Jobs completed per second, from the first arrival to the last completion. */
    public double requestsPerSecond() {
        return completed.size() / makespanSeconds();
    }

    /** Output tokens generated per second, from the first arrival to the last completion. */
    public double tokensPerSecond() {
        return completed.stream().mapToLong(c -> c.request().size().outputTokens()).sum() / makespanSeconds();
    }

    private double makespanSeconds() {
        double first = completed.stream().mapToDouble(CompletedRequest::arrivalSeconds).min().orElse(0);
        double last = completed.stream().mapToDouble(CompletedRequest::finishSeconds).max().orElse(0);
        return last - first;
    }

    private java.util.stream.Stream<CompletedRequest> ofClass(String jobClass) {
        return completed.stream().filter(c -> JobClasses.ALL.equals(jobClass) || c.request().jobClass().equals(jobClass));
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
