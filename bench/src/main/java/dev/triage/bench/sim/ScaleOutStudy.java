package dev.triage.bench.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * Routings × policies on one pool of backends ({@link ScaleOutSimulation}), each on the same workload
 * per seed: the mean sojourn of all requests, the median of the short ones, the 95th percentile of the
 * long ones and the requests completed per second, each averaged over the seeds.
 *
 * @param routings in report order
 * @param variants policies, each run under every routing
 * @param backend one backend of the pool; {@code speeds} says how many and how fast
 * @param speeds relative speed of each backend
 * @param sidecars Triage instances in front of the pool, each with an equal share of every backend's slots
 * @param seeds one workload per seed
 * @param workloads the workload for a seed, already loaded to the pool's capacity
 */
public record ScaleOutStudy(List<Routing> routings, List<PolicyVariant> variants, SimulatedBackend backend, List<Double> speeds,
        int sidecars, List<Long> seeds, LongFunction<Workload> workloads) {

    /** One routing and policy, its figures averaged over the seeds. */
    public record Row(Routing routing, String policy, double meanSeconds, double shortP50Seconds, double longP95Seconds,
            double requestsPerSecond) {}

    public ScaleOutStudy {
        routings = List.copyOf(routings);
        variants = List.copyOf(variants);
        speeds = List.copyOf(speeds);
        seeds = List.copyOf(seeds);
        if (routings.isEmpty() || variants.isEmpty() || seeds.isEmpty()) {
            throw new IllegalArgumentException("a scale-out study needs at least one routing, one policy and one seed");
        }
    }

    public List<Row> run() {
        double[][][] sums = new double[routings.size()][variants.size()][4];
        for (long seed : seeds) {
            Workload workload = workloads.apply(seed);
            for (int r = 0; r < routings.size(); r++) {
                for (int v = 0; v < variants.size(); v++) {
                    SimulationRun run = ScaleOutSimulation.run(workload, variants.get(v), backend, speeds, sidecars, routings.get(r), seed);
                    double[] sum = sums[r][v];
                    sum[0] += run.meanSojournSeconds();
                    sum[1] += classStatistic(run, "short", false);
                    sum[2] += classStatistic(run, "long", true);
                    sum[3] += run.requestsPerSecond();
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < routings.size(); r++) {
            for (int v = 0; v < variants.size(); v++) {
                double[] sum = sums[r][v];
                int n = seeds.size();
                rows.add(new Row(routings.get(r), variants.get(v).name(), sum[0] / n, sum[1] / n, sum[2] / n, sum[3] / n));
            }
        }
        return rows;
    }

    /** The class's P95 or P50; NaN when the workload has no job of that class. */
    private static double classStatistic(SimulationRun run, String jobClass, boolean p95) {
        boolean present = run.completed().stream().anyMatch(c -> c.request().jobClass().equals(jobClass));
        if (!present) {
            return Double.NaN;
        }
        return p95 ? run.sojourn(jobClass).p95() : run.sojourn(jobClass).p50();
    }

    public static String markdown(List<Row> rows) {
        StringBuilder md = new StringBuilder("| routing | policy | mean (s) | short P50 (s) | long P95 (s) | requests/s |\n");
        md.append("|---|---|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.3f |%n", row.routing().label(), row.policy(),
                    row.meanSeconds(), row.shortP50Seconds(), row.longP95Seconds(), row.requestsPerSecond()));
        }
        return md.toString();
    }

    public static void writeCsv(Path file, List<Row> rows) throws IOException {
        StringBuilder csv = new StringBuilder("routing,policy,mean_s,short_p50_s,long_p95_s,requests_per_s\n");
        for (Row row : rows) {
            csv.append(String.format(Locale.ROOT, "%s,%s,%.4f,%.4f,%.4f,%.4f%n", row.routing().label(), row.policy(), row.meanSeconds(),
                    row.shortP50Seconds(), row.longP95Seconds(), row.requestsPerSecond()));
        }
        Files.writeString(file, csv, StandardCharsets.UTF_8);
    }
}
