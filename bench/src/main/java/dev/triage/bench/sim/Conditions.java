package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.proxy.scheduler.LapsSettings;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * When pausing pays: {@code laps} against {@code sjf} on the same workloads as the tail of the job
 * sizes, the estimates' error and the cost of a resume vary. Poisson arrivals (or a trace's own,
 * time-scaled) load one slot to ρ = 0.8.
 *
 * @param sizes each kind of workload by name: a function from an estimate model and a seed to a workload
 * @param estimates the estimate models tried on each
 * @param seeds one run per seed
 */
record Conditions(List<Sizes> sizes, List<EstimateModel> estimates, List<Long> seeds) {

    /** A kind of workload, drawn with a given estimate model and seed. */
    record Sizes(String name, BiFunction<EstimateModel, Long, Workload> workload) {}

    /** A resume that finds its KV cache: every paused job's cache survives. */
    static final SimulatedBackend FREE_RESUMES = LapsStudy.BACKEND.withSpareSlots(Integer.MAX_VALUE);

    /**
     * The table: for each kind of sizes and estimate model, sjf's mean, and for each {@code laps} setting
     * its mean over sjf's, with resumes that pay their prefill and with cached ones, and its P50 over sjf's.
     */
    String markdown(Map<String, LapsSettings> settings) {
        PolicyVariant sjf = PolicyVariant.parse("sjf", Duration.ZERO);
        StringBuilder md = new StringBuilder("### When pausing pays\n\n");
        md.append("Each `laps` setting's mean and P50 over `sjf`'s on the same runs (").append(seeds.size())
                .append(" seeds), with resumes that re-read the prompt and the text so far, and with resumes that find their KV cache.\n\n");
        md.append("| sizes | estimates | sjf mean (s) |");
        StringBuilder rule = new StringBuilder("|---|---|---:|");
        for (String name : settings.keySet()) {
            md.append(" ").append(name).append(": mean | cached: mean | P50 | pauses per job |");
            rule.append("---:|---:|---:|---:|");
        }
        md.append('\n').append(rule).append('\n');
        for (Sizes size : sizes) {
            for (EstimateModel estimate : estimates) {
                List<Workload> runs = seeds.stream().map(seed -> size.workload().apply(estimate, seed)).toList();
                List<LatencyStats> base = runs.stream().map(w -> Simulation.run(w, sjf, LapsStudy.BACKEND).sojourn(JobClasses.ALL)).toList();
                md.append(String.format(Locale.ROOT, "| %s | %s | %.2f |", size.name(), estimate.label(),
                        base.stream().mapToDouble(LatencyStats::mean).average().orElseThrow()));
                for (LapsSettings laps : settings.values()) {
                    PolicyVariant variant = PolicyVariant.parse("laps", Duration.ZERO, laps);
                    double mean = 0;
                    double cachedMean = 0;
                    double p50 = 0;
                    long pauses = 0;
                    long jobs = 0;
                    for (int i = 0; i < runs.size(); i++) {
                        SimulationRun paid = Simulation.run(runs.get(i), variant, LapsStudy.BACKEND);
                        LatencyStats cached = Simulation.run(runs.get(i), variant, FREE_RESUMES).sojourn(JobClasses.ALL);
                        mean += paid.sojourn(JobClasses.ALL).mean() / base.get(i).mean();
                        cachedMean += cached.mean() / base.get(i).mean();
                        p50 += paid.sojourn(JobClasses.ALL).get(Statistic.P50) / base.get(i).get(Statistic.P50);
                        pauses += paid.pauses();
                        jobs += runs.get(i).size();
                    }
                    md.append(String.format(Locale.ROOT, " %.3f | %.3f | %.3f | %.2f |", mean / runs.size(), cachedMean / runs.size(),
                            p50 / runs.size(), (double) pauses / jobs));
                }
                md.append('\n');
            }
        }
        return md.append('\n').toString();
    }
}
