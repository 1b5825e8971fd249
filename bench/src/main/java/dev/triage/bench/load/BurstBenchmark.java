package dev.triage.bench.load;

import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.model.cli.Progress;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

/**
 * Clairvoyant's burst benchmark through the real proxy: every request of the workload (50 short and
 * 50 long by default) arrives at once at a serial replay backend, in a shuffled order, once per run,
 * and each variant sees the same orders. Reports end-to-end latency and time to first token per
 * class as mean ± sd over runs.
 */
public final class BurstBenchmark {

    /**
     * @param speed the replay backend's prefill and per-token time
     * @param triageFlags extra flags for every Triage started (e.g. {@code --estimator baseline})
     * @param api the API chat requests use
     */
    public record Settings(List<WorkloadEntry> workload, List<LoadVariant> variants, int runs, ServiceTimeModel speed,
            int slots, List<String> triageFlags, ChatApi api) {}

    /** Summaries per variant and class. */
    public record Result(List<SummaryRow> endToEnd, List<SummaryRow> firstToken) {

        /** A variant's statistic for a class, in seconds, if both were run. */
        public Optional<Double> seconds(String variant, String jobClass, Statistic statistic) {
            return endToEnd.stream().filter(r -> r.policy().equals(variant) && r.jobClass().equals(jobClass)).findFirst()
                    .map(r -> r.seconds(statistic));
        }

        /** The comparisons the papers report, for the variants that were run. */
        public String findings() {
            StringBuilder text = new StringBuilder();
            for (SummaryRow row : endToEnd) {
                if (row.policy().equals("fcfs") || !row.jobClass().equals("short")) {
                    continue;
                }
                seconds("fcfs", "short", Statistic.P50).ifPresent(fcfs -> text.append(String.format(Locale.ROOT,
                        "%-12s short P50 %+6.1f%% vs fcfs", row.policy(), 100 * (row.seconds(Statistic.P50) / fcfs - 1))));
                seconds("fcfs", "long", Statistic.P95).ifPresent(fcfs -> seconds(row.policy(), "long", Statistic.P95)
                        .ifPresent(mine -> text.append(String.format(Locale.ROOT, ", long P95 %+6.1f%% vs fcfs", 100 * (mine / fcfs - 1)))));
                seconds("oracle-sjf", RunSummaries.ALL, Statistic.MEAN).ifPresent(oracle -> seconds(row.policy(), RunSummaries.ALL,
                        Statistic.MEAN).ifPresent(mine -> text.append(String.format(Locale.ROOT, ", mean %+6.1f%% vs oracle-sjf",
                        100 * (mine / oracle - 1)))));
                text.append('\n');
            }
            return text.toString();
        }
    }

    private BurstBenchmark() {}

    public static Result run(Settings settings) throws IOException, InterruptedException {
        AnswerBook answers = AnswerBook.of(settings.workload());
        List<SummaryRow> endToEnd = new ArrayList<>();
        List<SummaryRow> firstToken = new ArrayList<>();
        // A burst keeps the backend busy for the workload's whole service time, spread over its slots.
        double burstSeconds = settings.workload().stream().mapToDouble(e -> settings.speed().seconds(e.answerTokens())).sum()
                / settings.slots();
        int sessions = settings.variants().size() * settings.runs();
        Progress progress = Progress.start("burst load runs (" + settings.workload().size() + " requests each)", sessions,
                Duration.ofMillis(Math.round(sessions * burstSeconds * 1000)));
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .answers(answers).slots(settings.slots()).speed(settings.speed()).build())) {
            for (LoadVariant variant : settings.variants()) {
                RunSummaries summaries = new RunSummaries(variant.name());
                for (int run = 0; run < settings.runs(); run++) {
                    summaries.add(LoadSession.run("http://127.0.0.1:" + backend.port(), answers, variant,
                            burst(settings.workload(), run), settings.triageFlags(), new LoadGenerator(settings.api(), false)));
                    progress.step();
                }
                endToEnd.addAll(summaries.endToEnd());
                firstToken.addAll(summaries.firstToken());
            }
        }
        progress.done();
        return new Result(endToEnd, firstToken);
    }

    /** The workload, all sent at once, in an order shuffled by the run's seed. */
    static List<LoadRequest> burst(List<WorkloadEntry> workload, long seed) {
        List<WorkloadEntry> order = new ArrayList<>(workload);
        Collections.shuffle(order, new Random(seed));
        return order.stream().map(entry -> new LoadRequest(entry, 0)).toList();
    }
}
