package dev.triage.bench.stats;

import java.util.Arrays;

/**
 * Summary of a set of latencies: mean and the percentiles the reports show. Percentiles interpolate
 * linearly between order statistics (numpy's default, R's type 7), the method of the papers' own
 * simulators, so their numbers and ours are computed the same way. All NaN when there are none.
 */
public record LatencyStats(int count, double mean, double p50, double p90, double p95, double p99) {

    public static LatencyStats of(double[] values) {
        if (values.length == 0) {
            return new LatencyStats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (double value : sorted) {
            sum += value;
        }
        return new LatencyStats(sorted.length, sum / sorted.length, percentile(sorted, 50), percentile(sorted, 90),
                percentile(sorted, 95), percentile(sorted, 99));
    }

    /** The p-th percentile (0 to 100) of sorted values, interpolated linearly. */
    static double percentile(double[] sorted, double p) {
        double rank = (sorted.length - 1) * p / 100;
        int below = (int) Math.floor(rank);
        int above = Math.min(below + 1, sorted.length - 1);
        return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
    }

    /** One of the statistics, by name. */
    public double get(Statistic statistic) {
        return switch (statistic) {
            case MEAN -> mean;
            case P50 -> p50;
            case P90 -> p90;
            case P95 -> p95;
            case P99 -> p99;
        };
    }

    /** The statistics reports show, in column order. */
    public enum Statistic {
        MEAN, P50, P90, P95, P99;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
