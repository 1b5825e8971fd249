package dev.triage.bench.load;

import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.Triage;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Several backends behind one Triage ({@code bench pool}): the same burst served by a fast replay
 * backend alone, by a slow one alone, by both through their one shared queue, and by both with the
 * slow one killed part-way. Each burst starts fresh backends and a fresh Triage (nothing learned
 * carries over), every request arriving at once in a shuffled order. Reports each setup's burst length
 * (first request sent to last answer), mean latency, and the requests served and lost; a lost
 * request is one whose answer did not arrive whole (it was streaming from the killed backend).
 */
public final class PoolBenchmark {

    /**
     * @param fast the fast backend's speed
     * @param slowdown how many times slower the slow backend generates each token
     * @param slots each backend's slots
     * @param killAt when the slow backend is killed, as a share of the fast backend's own burst length in the same run
     * @param triageFlags extra flags for every Triage started
     */
    public record Settings(List<WorkloadEntry> workload, ServiceTimeModel fast, double slowdown, int slots, int runs,
            double killAt, List<String> triageFlags) {}

    /**
     * One setup's burst.
     *
     * @param servedByFast answers the fast backend completed; NaN when it was not among the backends
     */
    record Burst(double lengthSeconds, double meanSeconds, int served, int lost, double servedByFast) {}

    private static final List<String> SETUPS = List.of("fast alone", "slow alone", "fast + slow", "fast + slow, slow killed");

    private PoolBenchmark() {}

    /** Runs every setup {@code runs} times and reports the means over runs as a table. */
    public static String run(Settings settings) throws IOException, InterruptedException {
        AnswerBook answers = AnswerBook.of(settings.workload());
        ServiceTimeModel slow = new ServiceTimeModel(settings.fast().baseSeconds(), settings.fast().secondsPerPromptToken(),
                settings.fast().secondsPerToken() * settings.slowdown());
        double[][] sums = new double[SETUPS.size()][5];
        for (int run = 0; run < settings.runs(); run++) {
            List<LoadRequest> burst = BurstBenchmark.burst(settings.workload(), run);
            Burst fastAlone = burst(settings, answers, burst, List.of(settings.fast()), -1);
            List<Burst> bursts = List.of(fastAlone,
                    burst(settings, answers, burst, List.of(slow), -1),
                    burst(settings, answers, burst, List.of(settings.fast(), slow), -1),
                    burst(settings, answers, burst, List.of(settings.fast(), slow), settings.killAt() * fastAlone.lengthSeconds()));
            for (int setup = 0; setup < SETUPS.size(); setup++) {
                Burst b = bursts.get(setup);
                double[] values = {b.lengthSeconds(), b.meanSeconds(), b.served(), b.lost(), b.servedByFast()};
                for (int i = 0; i < values.length; i++) {
                    sums[setup][i] += values[i] / settings.runs();
                }
            }
        }
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "%d requests at once, %d slot%s per backend, the slow backend %.1f× slower per token, mean of %d runs%n%n",
                settings.workload().size(), settings.slots(), settings.slots() == 1 ? "" : "s", settings.slowdown(), settings.runs()));
        table.append("| backends | burst length (s) | mean latency (s) | served | lost | served by the fast one |\n")
                .append("|---|---:|---:|---:|---:|---:|\n");
        for (int setup = 0; setup < SETUPS.size(); setup++) {
            double[] s = sums[setup];
            table.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.1f | %.1f | %s |%n", SETUPS.get(setup), s[0], s[1], s[2],
                    s[3], Double.isNaN(s[4]) ? "–" : String.format(Locale.ROOT, "%.1f", s[4])));
        }
        return table.toString();
    }

    /**
     * One burst through a fresh Triage in front of fresh backends of these speeds, the last one killed
     * {@code killAfterSeconds} after the burst starts (never, when negative).
     */
    private static Burst burst(Settings settings, AnswerBook answers, List<LoadRequest> requests, List<ServiceTimeModel> speeds,
            double killAfterSeconds) throws IOException, InterruptedException {
        List<ReplayBackend> backends = new ArrayList<>();
        ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();
        ScheduledFuture<?> kill = null;
        try {
            List<String> flags = new ArrayList<>(List.of("--listen", "127.0.0.1:0"));
            for (int i = 0; i < speeds.size(); i++) {
                ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                        .answers(answers).slots(settings.slots()).speed(speeds.get(i)).build());
                backends.add(backend);
                flags.addAll(List.of("--backend", backend.uri() + ",max-concurrency=" + settings.slots() + ",name=backend-" + (i + 1)));
            }
            flags.addAll(settings.triageFlags());
            try (Triage triage = Triage.start(ConfigLoader.load(flags.toArray(String[]::new), Map.of()))) {
                URI base = URI.create("http://127.0.0.1:" + triage.address().getPort());
                LoadSession.awaitReady(base);
                if (killAfterSeconds >= 0) {
                    ReplayBackend doomed = backends.get(backends.size() - 1);
                    kill = killer.schedule(doomed::close, Math.round(killAfterSeconds * 1e3), TimeUnit.MILLISECONDS);
                }
                long start = System.nanoTime();
                List<LoadResult> results = new LoadGenerator(ChatApi.OPENAI).run(base, requests);
                double length = (System.nanoTime() - start) / 1e9;
                List<LoadResult> served = results.stream().filter(r -> r.status() == 200).toList();
                return new Burst(length, served.stream().mapToDouble(LoadResult::endToEndSeconds).average().orElse(Double.NaN),
                        served.size(), results.size() - served.size(),
                        speeds.get(0) == settings.fast() ? backends.get(0).completedTokens().size() : Double.NaN);
            }
        } finally {
            boolean killed = kill != null && !kill.cancel(false);
            killer.shutdown();
            killer.awaitTermination(1, TimeUnit.MINUTES);
            // A backend closed twice finds its event loop gone.
            (killed ? backends.subList(0, backends.size() - 1) : backends).forEach(ReplayBackend::close);
        }
    }
}
