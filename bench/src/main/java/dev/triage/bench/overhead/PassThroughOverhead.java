package dev.triage.bench.overhead;

import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LatencyStats;
import dev.triage.model.cli.Flags;
import dev.triage.proxy.Triage;
import dev.triage.proxy.config.ConfigLoader;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures the latency Triage adds to a request it passes through: the replay backend's
 * {@code GET /v1/models}, asked directly and through Triage, alternately in blocks so that both see
 * the same machine, one keep-alive connection each, in one process. Reports both distributions and
 * the difference of their medians.
 *
 * <pre>
 * scripts/overhead [--requests 20000] [--warmup 5000] [--block 100]
 * </pre>
 */
public final class PassThroughOverhead {

    private PassThroughOverhead() {}

    public static void main(String[] args) throws Exception {
        Flags flags = Flags.parse(args);
        int requests = flags.integer("requests", 20_000);
        int warmup = flags.integer("warmup", 5_000);
        int block = flags.integer("block", 100);
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder().build());
                Triage triage = Triage.start(ConfigLoader.load(new String[] {"--listen", "127.0.0.1:0",
                        "--backend", "http://127.0.0.1:" + backend.port()}, Map.of()));
                KeepAliveClient direct = new KeepAliveClient(backend.port(), "/v1/models");
                KeepAliveClient proxied = new KeepAliveClient(triage.address().getPort(), "/v1/models")) {
            for (int i = 0; i < warmup; i++) {
                direct.roundTrip();
                proxied.roundTrip();
            }
            double[] directMicros = new double[requests];
            double[] proxiedMicros = new double[requests];
            for (int done = 0; done < requests; done += block) {
                int end = Math.min(requests, done + block);
                for (int i = done; i < end; i++) {
                    directMicros[i] = direct.roundTrip() / 1e3;
                }
                for (int i = done; i < end; i++) {
                    proxiedMicros[i] = proxied.roundTrip() / 1e3;
                }
            }
            report(requests, LatencyStats.of(directMicros), LatencyStats.of(proxiedMicros));
        }
    }

    private static void report(int requests, LatencyStats direct, LatencyStats proxied) {
        System.out.printf(Locale.ROOT, "pass-through GET /v1/models, %d requests each, one keep-alive connection, loopback%n", requests);
        System.out.printf(Locale.ROOT, "%-9s %9s %9s %9s %9s  (microseconds)%n", "", "p50", "p90", "p99", "mean");
        for (var row : List.of(Map.entry("direct", direct), Map.entry("triage", proxied))) {
            LatencyStats s = row.getValue();
            System.out.printf(Locale.ROOT, "%-9s %9.1f %9.1f %9.1f %9.1f%n", row.getKey(), s.p50(), s.p90(), s.p99(), s.mean());
        }
        System.out.printf(Locale.ROOT, "added    %9.1f %9.1f %9.1f %9.1f%n", proxied.p50() - direct.p50(),
                proxied.p90() - direct.p90(), proxied.p99() - direct.p99(), proxied.mean() - direct.mean());
    }
}
