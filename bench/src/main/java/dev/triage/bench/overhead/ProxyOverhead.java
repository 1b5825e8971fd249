package dev.triage.bench.overhead;

import dev.triage.bench.load.LoadSession;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LatencyStats;
import dev.triage.model.cli.Flags;
import dev.triage.proxy.Triage;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Measures what Triage adds to a request against the same replay backend asked directly, in one
 * process: a pass-through {@code GET /v1/models} and a small scheduled chat ({@code POST
 * /v1/chat/completions}) with free slots. The latency mode sends each kind directly and through
 * Triage on one keep-alive connection each, alternately in blocks so that all four see the same
 * machine, and reports the distributions and the differences at p50, p90 and p99. The throughput mode
 * runs closed-loop connections for a few seconds at a time, directly and through Triage in turn, and
 * reports requests per second and their ratio, for the pass-through route (what relaying alone
 * costs) and then the scheduled chat, with the CPU time Triage's own threads spent per request.
 *
 * <pre>
 * scripts/overhead [--estimator classifier] [--requests 20000] [--warmup 5000] [--block 100]
 * scripts/overhead --mode throughput [--connections 16] [--seconds 5] [--rounds 3] [--estimator classifier]
 *                  [--backend-seconds-per-token 0.002]
 * </pre>
 */
public final class ProxyOverhead {

    /** A small chat: a short prompt and an answer of a few tokens. */
    private static final String CHAT = "{\"model\":\"replay\",\"messages\":[{\"role\":\"user\",\"content\":"
            + "\"Name three primary colours.\"}]}";
    /** Tokens in every answer. */
    private static final int ANSWER_TOKENS = 8;
    /** Backend slots and Triage's concurrency, well above any connection count here: slots are always free. */
    private static final int SLOTS = 256;
    /** The prefix of every thread Triage starts. */
    private static final String TRIAGE_THREADS = "triage-";

    private ProxyOverhead() {}

    public static void main(String[] args) throws Exception {
        Flags flags = Flags.parse(args);
        String mode = flags.string("mode", "latency");
        String estimator = flags.string("estimator", "classifier");
        int requests = flags.integer("requests", 20_000);
        int warmup = flags.integer("warmup", 5_000);
        int block = flags.integer("block", 100);
        int connections = flags.integer("connections", 16);
        int seconds = flags.integer("seconds", 5);
        int rounds = flags.integer("rounds", 3);
        // As fast as it goes by default: the proxy's own cost shows whole. A backend that takes time per
        // token (a model's decoding) shows whether scheduling holds throughput back where the backend,
        // not the CPU the three share, is the limit.
        double secondsPerToken = flags.number("backend-seconds-per-token", 1e-9);
        flags.finish();
        if (!mode.equals("latency") && !mode.equals("throughput")) {
            throw new IllegalArgumentException("--mode: " + mode + " (expected: latency or throughput)");
        }
        ReplayBackendSettings settings = ReplayBackendSettings.builder().defaultAnswerTokens(ANSWER_TOKENS)
                .speed(new ServiceTimeModel(0, secondsPerToken)).slots(SLOTS).build();
        try (ReplayBackend backend = ReplayBackend.start(settings);
                Triage triage = Triage.start(ConfigLoader.load(new String[] {"--listen", "127.0.0.1:0",
                        "--backend", "http://127.0.0.1:" + backend.port(), "--max-concurrency", String.valueOf(SLOTS),
                        "--estimator", estimator}, Map.of()))) {
            int triagePort = triage.address().getPort();
            LoadSession.awaitReady(URI.create("http://127.0.0.1:" + triagePort));
            System.out.printf(Locale.ROOT, "backend: %d tokens an answer at %.3g s a token%n", ANSWER_TOKENS, secondsPerToken);
            if (mode.equals("throughput")) {
                measureThroughput(backend.port(), triagePort, estimator, connections, seconds, rounds);
            } else {
                measureLatency(backend.port(), triagePort, estimator, requests, warmup, block);
            }
        }
    }

    private static void measureLatency(int backendPort, int triagePort, String estimator, int requests, int warmup,
            int block) throws Exception {
        byte[] models = KeepAliveClient.get("/v1/models");
        byte[] chat = KeepAliveClient.postJson("/v1/chat/completions", CHAT);
        try (KeepAliveClient directModels = new KeepAliveClient(backendPort, models);
                KeepAliveClient triageModels = new KeepAliveClient(triagePort, models);
                KeepAliveClient directChat = new KeepAliveClient(backendPort, chat);
                KeepAliveClient triageChat = new KeepAliveClient(triagePort, chat)) {
            List<KeepAliveClient> clients = List.of(directModels, triageModels, directChat, triageChat);
            for (int i = 0; i < warmup; i++) {
                for (KeepAliveClient client : clients) {
                    client.roundTrip();
                }
            }
            double[][] micros = new double[clients.size()][requests];
            for (int done = 0; done < requests; done += block) {
                int end = Math.min(requests, done + block);
                for (int c = 0; c < clients.size(); c++) {
                    for (int i = done; i < end; i++) {
                        micros[c][i] = clients.get(c).roundTrip() / 1e3;
                    }
                }
            }
            System.out.printf(Locale.ROOT, "%d requests each, one keep-alive connection each, loopback, alternating blocks of %d; "
                    + "estimator %s%n", requests, block, estimator);
            System.out.printf(Locale.ROOT, "%-36s %9s %9s %9s %9s  (microseconds)%n", "", "p50", "p90", "p99", "mean");
            report("pass-through GET /v1/models", LatencyStats.of(micros[0]), LatencyStats.of(micros[1]));
            report("scheduled POST chat", LatencyStats.of(micros[2]), LatencyStats.of(micros[3]));
        }
    }

    private static void report(String route, LatencyStats direct, LatencyStats proxied) {
        for (var row : List.of(Map.entry(route + ", direct", direct), Map.entry(route + ", triage", proxied))) {
            LatencyStats s = row.getValue();
            System.out.printf(Locale.ROOT, "%-36s %9.1f %9.1f %9.1f %9.1f%n", row.getKey(), s.p50(), s.p90(), s.p99(), s.mean());
        }
        System.out.printf(Locale.ROOT, "%-36s %9.1f %9.1f %9.1f %9.1f%n", route + ", added", proxied.p50() - direct.p50(),
                proxied.p90() - direct.p90(), proxied.p99() - direct.p99(), proxied.mean() - direct.mean());
    }

    private static void measureThroughput(int backendPort, int triagePort, String estimator, int connections, int seconds,
            int rounds) throws Exception {
        System.out.printf(Locale.ROOT, "%d keep-alive connections, %d rounds of %d s each, loopback, directly and through Triage "
                + "in turn; estimator %s%n", connections, rounds, seconds, estimator);
        // Pass-through first: what relaying alone costs, the ceiling for the scheduled route.
        throughput("pass-through GET /v1/models", KeepAliveClient.get("/v1/models"), backendPort, triagePort, connections, seconds,
                rounds);
        throughput("scheduled POST chat", KeepAliveClient.postJson("/v1/chat/completions", CHAT), backendPort, triagePort,
                connections, seconds, rounds);
    }

    private static void throughput(String route, byte[] request, int backendPort, int triagePort, int connections, int seconds,
            int rounds) throws Exception {
        closedLoop(backendPort, request, connections, 1);
        closedLoop(triagePort, request, connections, 1);
        double direct = 0;
        double proxied = 0;
        long proxiedRequests = 0;
        long triageCpuNanos = 0;
        for (int round = 0; round < rounds; round++) {
            direct += closedLoop(backendPort, request, connections, seconds).perSecond();
            long cpuBefore = ThreadCpu.nanos(TRIAGE_THREADS);
            Completed through = closedLoop(triagePort, request, connections, seconds);
            triageCpuNanos += ThreadCpu.nanos(TRIAGE_THREADS) - cpuBefore;
            proxied += through.perSecond();
            proxiedRequests += through.requests();
        }
        direct /= rounds;
        proxied /= rounds;
        // A share of a shared machine's throughput moves with whatever else runs; the CPU Triage spends
        // on a request moves much less, and says where the share goes.
        System.out.printf(Locale.ROOT, "%-28s direct %8.0f requests/s, triage %8.0f requests/s (%.0f%% of direct); "
                + "Triage's threads %.0f us of CPU a request%n", route, direct, proxied, 100 * proxied / direct,
                triageCpuNanos / 1e3 / proxiedRequests);
    }

    /** Requests completed over a measuring window. */
    private record Completed(long requests, double seconds) {
        double perSecond() {
            return requests / seconds;
        }
    }

    /** The requests that {@code connections} clients, each sending as soon as it has an answer, complete. */
    private static Completed closedLoop(int port, byte[] request, int connections, int seconds) throws Exception {
        LongAdder completed = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        DaemonThreadFactory clientThreads = new DaemonThreadFactory("overhead-client");
        List<Exception> failures = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            KeepAliveClient client = new KeepAliveClient(port, request);
            Thread thread = clientThreads.newThread(() -> {
                try (client) {
                    while (!stop.get()) {
                        client.roundTrip();
                        completed.increment();
                    }
                } catch (Exception e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L); // the measuring window itself, not a wait for an event
        long count = completed.sum();
        double elapsed = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        for (Thread thread : threads) {
            thread.join();
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        return new Completed(count, elapsed);
    }
}
