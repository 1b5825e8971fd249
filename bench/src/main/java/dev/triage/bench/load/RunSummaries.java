package dev.triage.bench.load;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.MeanSd;
import dev.triage.bench.stats.SummaryRow;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Collects the runs of one variant and summarises them the way the simulator does: per class (and
 * {@code all}), each statistic's mean and standard deviation over runs.
 */
final class RunSummaries {

    static final String ALL = "all";

    private final String variant;
    private final List<Map<String, LatencyStats>> endToEnd = new ArrayList<>();
    private final List<Map<String, LatencyStats>> firstToken = new ArrayList<>();
    private final List<Long> promotions = new ArrayList<>();
    private final List<Double> burstLengths = new ArrayList<>();
    private final List<Double> throughputs = new ArrayList<>();
    private final List<Double> slotsAtEnd = new ArrayList<>();
    private final List<Long> estimatorFallbacks = new ArrayList<>();
    private final List<LoadSession.Preemptions> preemptions = new ArrayList<>();

    RunSummaries(String variant) {
        this.variant = variant;
    }

    /** Adds a run; fails when a request of it did not succeed. */
    void add(LoadSession.Outcome run) {
        for (LoadResult result : run.results()) {
            if (result.status() != 200) {
                throw new IllegalStateException(variant + ": a request ended with status " + result.status());
            }
        }
        endToEnd.add(byClass(run.results(), LoadResult::endToEndSeconds));
        firstToken.add(byClass(run.results(), LoadResult::firstTokenSeconds));
        promotions.add(run.starvationPromotions());
        double length = run.results().stream().mapToDouble(LoadResult::endSeconds).max().orElse(0)
                - run.results().stream().mapToDouble(LoadResult::sentSeconds).min().orElse(0);
        burstLengths.add(length);
        throughputs.add(run.results().size() / length);
        slotsAtEnd.add((double) run.slotsAtEnd());
        estimatorFallbacks.add(run.estimatorFallbacks());
        preemptions.add(run.preemptions());
    }

    /**
     * How the variants served, mean ± sd over runs, a line each: their throughput, Triage's slots at
     * the end of their runs, and the {@link #preemptions} of those that paused.
     */
    static String serving(Collection<RunSummaries> variants) {
        return perVariant("throughput (requests/s)", variants, RunSummaries::throughputs, 2) + "\n"
                + perVariant("Triage's slots at the end", variants, RunSummaries::slotsAtEnd, 1) + "\n"
                + preemptions(variants);
    }

    /**
     * The pauses, resumes and re-prefilled tokens of each variant that paused a request, mean ± sd over
     * runs, a line each; nothing when none did.
     */
    private static String preemptions(Collection<RunSummaries> variants) {
        List<RunSummaries> paused = variants.stream()
                .filter(summaries -> summaries.preemptions.stream().anyMatch(run -> run.pauses() > 0)).toList();
        if (paused.isEmpty()) {
            return "";
        }
        return perVariant("pauses per run", paused, s -> s.perRun(LoadSession.Preemptions::pauses), 1) + "\n"
                + perVariant("resumes per run", paused, s -> s.perRun(LoadSession.Preemptions::resumes), 1) + "\n"
                + perVariant("re-prefilled tokens per run", paused, s -> s.perRun(LoadSession.Preemptions::reprefilledTokens), 0)
                + "\n";
    }

    private double[] perRun(ToLongFunction<LoadSession.Preemptions> count) {
        return preemptions.stream().mapToDouble(count::applyAsLong).toArray();
    }

    /** Requests per run that Triage sized with its fallback estimator. */
    double estimatorFallbacks() {
        return estimatorFallbacks.stream().mapToLong(Long::longValue).average().orElse(0);
    }

    /**
     * One line of a figure per variant, mean ± sd over runs ({@code "throughput (requests/s): fcfs 3.1 ± 0.1; sjf 3.2 ± 0.0"}),
     * with {@code decimals} digits after the point.
     */
    static String perVariant(String figure, Collection<RunSummaries> variants, Function<RunSummaries, double[]> perRun, int decimals) {
        StringJoiner line = new StringJoiner("; ", figure + ": ", "");
        for (RunSummaries summaries : variants) {
            MeanSd value = MeanSd.of(perRun.apply(summaries));
            line.add(String.format(Locale.ROOT, "%s %." + decimals + "f ± %." + decimals + "f", summaries.variant, value.mean(), value.sd()));
        }
        return line.toString();
    }

    boolean hasClass(String jobClass) {
        return !endToEnd.isEmpty() && endToEnd.stream().allMatch(run -> run.containsKey(jobClass));
    }

    /** A statistic of the end-to-end latency of a class, in each run, in seconds. */
    double[] perRun(String jobClass, Statistic statistic) {
        return endToEnd.stream().mapToDouble(run -> run.get(jobClass).get(statistic)).toArray();
    }

    /** Each run's length, from its first request sent to its last answer's end: for a burst, the time its last answer ended. */
    double[] burstLengths() {
        return burstLengths.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** How many requests Triage let the backend run at once at each run's end; 0 without Triage. */
    double[] slotsAtEnd() {
        return slotsAtEnd.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Each run's throughput: its requests, all completed, over its length, per second. */
    double[] throughputs() {
        return throughputs.stream().mapToDouble(Double::doubleValue).toArray();
    }

    List<SummaryRow> endToEnd() {
        return rows(endToEnd);
    }

    List<SummaryRow> firstToken() {
        return rows(firstToken);
    }

    private static Map<String, LatencyStats> byClass(List<LoadResult> results, ToDoubleFunction<LoadResult> seconds) {
        Map<String, List<Double>> values = new LinkedHashMap<>();
        for (LoadResult result : results) {
            values.computeIfAbsent(result.jobClass(), c -> new ArrayList<>()).add(seconds.applyAsDouble(result));
            values.computeIfAbsent(ALL, c -> new ArrayList<>()).add(seconds.applyAsDouble(result));
        }
        Map<String, LatencyStats> stats = new LinkedHashMap<>();
        values.forEach((cls, list) -> stats.put(cls, LatencyStats.of(list.stream().mapToDouble(Double::doubleValue).toArray())));
        return stats;
    }

    /** A row per class that any run had, over the runs that had it: a small Poisson draw can miss a class. */
    private List<SummaryRow> rows(List<Map<String, LatencyStats>> runs) {
        List<SummaryRow> rows = new ArrayList<>();
        double tauFired = promotions.stream().mapToLong(Long::longValue).average().orElse(0);
        Set<String> classes = new LinkedHashSet<>();
        runs.forEach(run -> classes.addAll(run.keySet()));
        for (String cls : classes) {
            List<LatencyStats> withClass = runs.stream().map(run -> run.get(cls)).filter(Objects::nonNull).toList();
            rows.add(SummaryRow.over(variant, cls, withClass, cls.equals(ALL) ? tauFired : 0));
        }
        return rows;
    }
}
