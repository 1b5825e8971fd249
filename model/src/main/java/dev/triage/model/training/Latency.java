package dev.triage.model.training;

import dev.triage.features.Prompt;
import dev.triage.model.JobEstimator;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Times an estimator one request at a time, as Triage calls it, on real prompts: p50 and p99 per
 * request and requests per second on one calling thread, after a warm-up. A figure for reports, read
 * beside the JMH benchmarks ({@code scripts/jmh}), which control for more.
 *
 * @param estimator the estimator's name
 * @param requests requests timed
 * @param p50Nanos the median time of one request
 * @param p99Nanos the 99th percentile
 * @param perSecond requests per second, one after another on one thread
 */
record Latency(String estimator, int requests, long p50Nanos, long p99Nanos, double perSecond) {

    static Latency time(JobEstimator<Prompt> estimator, List<Prompt> prompts) {
        for (int i = 0; i < Math.min(200, prompts.size()); i++) {
            estimator.estimate(prompts.get(i));
        }
        long[] nanos = new long[prompts.size()];
        long start = System.nanoTime();
        for (int i = 0; i < nanos.length; i++) {
            long before = System.nanoTime();
            estimator.estimate(prompts.get(i));
            nanos[i] = System.nanoTime() - before;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Arrays.sort(nanos);
        return new Latency(estimator.name(), nanos.length, nanos[nanos.length / 2], nanos[(int) (nanos.length * 0.99)],
                nanos.length / seconds);
    }

    /** The figures of {@link #time} as a sentence for a report. */
    static String measure(JobEstimator<Prompt> estimator, List<Prompt> prompts) {
        Latency latency = time(estimator, prompts);
        return String.format(Locale.ROOT, "`%s`, one request at a time over the %,d test prompts (%d cores): p50 %s, p99 %s, "
                + "%,.0f requests/s", latency.estimator, latency.requests, Runtime.getRuntime().availableProcessors(),
                duration(latency.p50Nanos), duration(latency.p99Nanos), latency.perSecond);
    }

    static String duration(long nanos) {
        return nanos < 1_000_000 ? String.format(Locale.ROOT, "%.0f µs", nanos / 1e3) : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
