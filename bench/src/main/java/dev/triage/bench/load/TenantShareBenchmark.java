package dev.triage.bench.load;

import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * One tenant floods a serial backend while another sends a steady stream, through the real proxy and
 * the replay backend, with and without fair shares ({@code --fair-share tenant}), each sized by
 * Triage's estimator and by the oracle (every request sized by its true length: shares then by true
 * backend time). The flood is the
 * workload's short answers, all sent at once, enough to keep the backend busy past the end of the
 * run; the steady tenant's requests, drawn from the whole workload, arrive as a Poisson process that
 * alone would load the backend to {@code steadyRho}. Tenants are told apart by their API keys.
 *
 * <p>A tenant's share is the backend time its requests took within the window in which the steady
 * tenant sends (each request's service time, by the replay backend's own speed, ending when its
 * answer ended), over what both tenants took in it. No request carries an output limit, so Triage sizes every one by
 * its estimator.
 *
 * @see <a href="../../../../../../../docs/fair-shares.md">docs/fair-shares.md</a>
 */
public final class TenantShareBenchmark {

    static final String FLOOD_KEY = "sk-bench-flood";
    static final String STEADY_KEY = "sk-bench-steady";

    /**
     * @param seconds how long the steady tenant sends: the window the shares are measured in
     * @param steadyRho the load the steady tenant alone puts on the backend
     * @param weights Triage's {@code --tenant-weights} under fair shares; empty for equal weights
     */
    public record Settings(List<WorkloadEntry> workload, ServiceTimeModel speed, List<String> triageFlags, double seconds,
            double steadyRho, String weights, long seed) {}

    /**
     * What one tenant got under one variant.
     *
     * @param askedSeconds the backend time its requests sent within the window need
     * @param servedSeconds the backend time its requests took within the window
     * @param share its part of the backend time both tenants took within the window
     */
    public record TenantRow(String variant, String tenant, int requests, double askedSeconds, double servedSeconds,
            double share, LatencyStats latency) {

        TenantRow withShare(double of) {
            return new TenantRow(variant, tenant, requests, askedSeconds, servedSeconds, of, latency);
        }
    }

    private TenantShareBenchmark() {}

    public static List<TenantRow> run(Settings settings) throws IOException, InterruptedException {
        List<LoadRequest> requests = requests(settings);
        AnswerBook answers = AnswerBook.of(settings.workload());
        List<TenantRow> rows = new ArrayList<>();
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .answers(answers).slots(1).speed(settings.speed()).build())) {
            for (String variant : List.of("sjf", "sjf+fair", "oracle-sjf", "oracle-sjf+fair")) {
                boolean fair = variant.endsWith("+fair");
                List<String> flags = new ArrayList<>(settings.triageFlags());
                if (fair) {
                    flags.addAll(List.of("--fair-share", "tenant"));
                    if (!settings.weights().isBlank()) {
                        flags.addAll(List.of("--tenant-weights", settings.weights()));
                    }
                }
                LoadVariant sjf = LoadVariant.parse(variant.replace("+fair", ""), Duration.ZERO);
                String name = fair ? sjf.name() + ", fair shares" : sjf.name();
                List<LoadResult> results = LoadSession.run(backend, answers, sjf, requests, flags, ChatApi.OPENAI).results();
                TenantRow flood = row(name, "flood", FLOOD_KEY, requests, results, settings);
                TenantRow steady = row(name, "steady", STEADY_KEY, requests, results, settings);
                double served = flood.servedSeconds() + steady.servedSeconds();
                rows.add(flood.withShare(flood.servedSeconds() / served));
                rows.add(steady.withShare(steady.servedSeconds() / served));
            }
        }
        return rows;
    }

    /** The flood at 0 s, then the steady tenant's Poisson arrivals until {@code seconds}. */
    static List<LoadRequest> requests(Settings settings) {
        List<WorkloadEntry> shorts = settings.workload().stream().filter(e -> e.jobClass().equals("short")).toList();
        if (shorts.isEmpty()) {
            throw new IllegalArgumentException("the workload has no short answers to flood with");
        }
        double meanService = settings.workload().stream().mapToDouble(e -> e.serviceSeconds(settings.speed())).average().orElseThrow();
        double meanShort = shorts.stream().mapToDouble(e -> e.serviceSeconds(settings.speed())).average().orElseThrow();
        // One and a half windows' worth of work: the flood still waits when the window ends, with or without fair shares.
        int flood = (int) Math.ceil(1.5 * settings.seconds() / meanShort);
        SplittableRandom random = new SplittableRandom(settings.seed());
        List<LoadRequest> requests = new ArrayList<>();
        for (int i = 0; i < flood; i++) {
            requests.add(new LoadRequest(shorts.get(i % shorts.size()), 0, Optional.of(FLOOD_KEY)));
        }
        double rate = settings.steadyRho() / meanService;
        for (double at = 0.05; at < settings.seconds(); at += -Math.log(1 - random.nextDouble()) / rate) {
            List<WorkloadEntry> workload = settings.workload();
            requests.add(new LoadRequest(workload.get(random.nextInt(workload.size())), at, Optional.of(STEADY_KEY)));
        }
        return requests;
    }

    private static TenantRow row(String variant, String tenant, String key, List<LoadRequest> requests,
            List<LoadResult> results, Settings settings) {
        double served = 0;
        double asked = 0;
        List<Double> latencies = new ArrayList<>();
        int count = 0;
        for (int i = 0; i < requests.size(); i++) {
            LoadRequest request = requests.get(i);
            if (!request.apiKey().orElseThrow().equals(key)) {
                continue;
            }
            count++;
            LoadResult result = results.get(i);
            double service = request.entry().serviceSeconds(settings.speed());
            asked += request.sendAtSeconds() < settings.seconds() ? service : 0;
            if (result.status() != 200) {
                continue; // refused or failed: the backend served it nothing
            }
            // When it was sent, not when it was due: a late timer must not shift its service out of the window.
            double end = result.endSeconds();
            double start = end - service;
            served += Math.max(0, Math.min(end, settings.seconds()) - Math.max(start, 0));
            latencies.add(result.endToEndSeconds());
        }
        return new TenantRow(variant, tenant, count, asked, served, Double.NaN,
                LatencyStats.of(latencies.stream().mapToDouble(Double::doubleValue).toArray()));
    }

    /** The rows as a Markdown table. */
    public static String table(List<TenantRow> rows) {
        StringBuilder table = new StringBuilder(
                "| variant | tenant | requests | backend s asked | backend s served | share | latency p50 (s) | latency p95 (s) |\n"
                        + "|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (TenantRow row : rows) {
            table.append(String.format(Locale.ROOT, "| %s | %s | %d | %.1f | %.1f | %.2f | %.2f | %.2f |%n", row.variant(),
                    row.tenant(), row.requests(), row.askedSeconds(), row.servedSeconds(), row.share(), row.latency().p50(), row.latency().p95()));
        }
        return table.toString();
    }
}
