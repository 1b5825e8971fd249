package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.stats.SummaryRow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Policies × seeds on one kind of workload. For each seed one workload is drawn and every policy runs
 * it; each run's statistics are computed per class, then averaged over the seeds with their standard
 * deviation (the papers' method: per-seed percentiles, averaged).
 *
 * <pre>{@code
 * List<SummaryRow> rows = new Experiment(variants, SimulatedBackend.slots(1), List.of(0L, 1L, 2L, 3L, 4L),
 *         seed -> Workload.synthetic(arrivals, sizes, estimates, 2000, seed)).run();
 * }</pre>
 *
 * @param variants the policies, in report order
 * @param backend the backend the jobs run on
 * @param seeds one run per seed and policy
 * @param workloads the workload for a seed
 */
public record Experiment(List<PolicyVariant> variants, SimulatedBackend backend, List<Long> seeds, LongFunction<Workload> workloads) {

    public Experiment {
        variants = List.copyOf(variants);
        seeds = List.copyOf(seeds);
        if (variants.isEmpty() || seeds.isEmpty()) {
            throw new IllegalArgumentException("an experiment needs at least one policy and one seed");
        }
    }

    /** Rows per policy (in the given order) and class (short, medium, long, others, then {@code all}). */
    public List<SummaryRow> run() {
        Map<String, Map<String, List<LatencyStats>>> stats = new LinkedHashMap<>();
        Map<String, Map<String, List<Long>>> promotions = new LinkedHashMap<>();
        Set<String> classes = new LinkedHashSet<>();
        for (long seed : seeds) {
            Workload workload = workloads.apply(seed);
            List<String> runClasses = new ArrayList<>(workload.classes());
            runClasses.add(JobClasses.ALL);
            classes.addAll(runClasses);
            for (PolicyVariant variant : variants) {
                SimulationRun run = Simulation.run(workload, variant, backend);
                for (String jobClass : runClasses) {
                    stats.computeIfAbsent(variant.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(jobClass, k -> new ArrayList<>()).add(run.sojourn(jobClass));
                    promotions.computeIfAbsent(variant.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(jobClass, k -> new ArrayList<>()).add(run.starvationPromotions(jobClass));
                }
            }
        }
        List<SummaryRow> rows = new ArrayList<>();
        for (PolicyVariant variant : variants) {
            for (String jobClass : JobClasses.ordered(new ArrayList<>(classes))) {
                List<LatencyStats> perSeed = stats.get(variant.name()).get(jobClass);
                if (perSeed != null) {
                    rows.add(SummaryRow.over(variant.name(), jobClass, perSeed,
                            promotions.get(variant.name()).get(jobClass).stream().mapToLong(Long::longValue).average().orElseThrow()));
                }
            }
        }
        return rows;
    }
}
