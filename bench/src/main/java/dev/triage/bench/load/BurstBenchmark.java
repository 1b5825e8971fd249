package dev.triage.bench.load;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.relay.AnswerLengthRelay;
import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.model.cli.Progress;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * Clairvoyant's burst benchmark through the real proxy: every request of the workload (35 short and
 * 35 long by default) arrives within a fraction of a second at a serial backend, in a shuffled order,
 * once per run, and each variant sees the same orders. The backend is the replay backend, or a real server behind an
 * {@link AnswerLengthRelay}. Reports end-to-end latency and time to first token per class as mean ±
 * sd over runs, and each variant against FCFS and oracle SJF run by run.
 */
public final class BurstBenchmark {

    /**
     * @param speed the replay backend's prefill and per-token time
     * @param slots Triage's {@code --max-concurrency} unless a variant sets its own
     * @param backendSlots how many generations the replay backend runs at once
     * @param batchSlowdown how much longer the replay backend's decoding step takes as its batch grows
     * @param triageFlags extra flags for every Triage started (e.g. {@code --estimator baseline})
     * @param api the API chat requests use
     */
    public record Settings(List<WorkloadEntry> workload, List<LoadVariant> variants, int runs, ServiceTimeModel speed,
            int slots, int backendSlots, BatchSlowdown batchSlowdown, List<String> triageFlags, ChatApi api) {

        /** A backend with as many slots as Triage and the replay backend's batch slowdown. */
        public Settings(List<WorkloadEntry> workload, List<LoadVariant> variants, int runs, ServiceTimeModel speed, int slots,
                List<String> triageFlags, ChatApi api) {
            this(workload, variants, runs, speed, slots, slots, BatchSlowdown.DEFAULT, triageFlags, api);
        }
    }

    /**
     * A burst against a real server that generates exactly the tokens it is asked for, behind an
     * {@link AnswerLengthRelay} that this benchmark starts.
     *
     * @param server the server's base URL, {@code http://host:port}
     * @param preemption how the server continues a paused stream ({@code --preemption}), for laps variants
     */
    public record ServerSettings(List<WorkloadEntry> workload, List<LoadVariant> variants, int runs, URI server,
            List<String> triageFlags, Optional<String> preemption) {}

    /** Summaries per variant and class, and each variant's runs. */
    public static final class Result {

        private final Map<String, RunSummaries> variants;
        private final List<SummaryRow> endToEnd = new ArrayList<>();
        private final List<SummaryRow> firstToken = new ArrayList<>();

        Result(Map<String, RunSummaries> variants) {
            this.variants = variants;
            for (RunSummaries summaries : variants.values()) {
                endToEnd.addAll(summaries.endToEnd());
                firstToken.addAll(summaries.firstToken());
            }
        }

        public List<SummaryRow> endToEnd() {
            return endToEnd;
        }

        public List<SummaryRow> firstToken() {
            return firstToken;
        }

        /** A variant's statistic for a class, in seconds, mean over runs, if both were run. */
        public Optional<Double> seconds(String variant, String jobClass, Statistic statistic) {
            return endToEnd.stream().filter(r -> r.policy().equals(variant) && r.jobClass().equals(jobClass)).findFirst()
                    .map(r -> r.seconds(statistic));
        }

        /**
         * The comparisons the papers report, for the variants that were run: short P50 and long P95
         * against FCFS, and the mean against oracle SJF, each as the mean of the runs' ratios (a run's
         * variants all see the same arrival order) with their range. Each comes twice: in seconds, and
         * in shares of each burst's length (its last answer's end). Every variant of a run serves the
         * same work on one serial backend, so its burst lasts as long whatever the order, unless the
         * backend's speed drifted — as it does on a shared machine; the shares take that drift out.
         * A variant whose estimator was saturated by the burst had part of it sized by Triage's
         * fallback estimator; how many is said first.
         */
        public String findings() {
            StringBuilder text = new StringBuilder(RunSummaries.perVariant("burst length (s)", variants.values(),
                    RunSummaries::burstLengths, 1)).append('\n')
                    .append(RunSummaries.serving(variants.values()));
            text.append("sized by the fallback estimator, per run:");
            variants.forEach((variant, summaries) -> text.append(String.format(Locale.ROOT, " %s %.1f;", variant,
                    summaries.estimatorFallbacks())));
            text.setLength(text.length() - 1);
            text.append('\n');
            for (String variant : variants.keySet()) {
                if (!variant.equals("fcfs")) {
                    text.append(String.format(Locale.ROOT, "%-16s %s%n%-16s by burst length: %s%n", variant,
                            comparisons(variant, false), "", comparisons(variant, true)));
                }
            }
            return text.toString();
        }

        private String comparisons(String variant, boolean byBurstLength) {
            List<String> comparisons = new ArrayList<>();
            ratios(variant, "fcfs", "short", Statistic.P50, byBurstLength).ifPresent(r -> comparisons.add(
                    "short P50 " + spread(r, x -> 100 * (x - 1), "%+.1f%%", "fcfs")));
            ratios(variant, "fcfs", "long", Statistic.P95, byBurstLength).ifPresent(r -> comparisons.add(
                    "long P95 " + spread(r, x -> 100 * (x - 1), "%+.1f%%", "fcfs")));
            if (!variant.equals("oracle-sjf")) {
                ratios(variant, "oracle-sjf", RunSummaries.ALL, Statistic.MEAN, byBurstLength).ifPresent(r -> comparisons.add(
                        "mean " + spread(r, x -> x, "%.2f×", "oracle-sjf")));
            }
            return String.join(", ", comparisons);
        }

        /**
         * Run by run, {@code variant}'s statistic over {@code reference}'s, each divided by its burst's
         * length when {@code byBurstLength}, if both have the class.
         */
        private Optional<double[]> ratios(String variant, String reference, String jobClass, Statistic statistic,
                boolean byBurstLength) {
            RunSummaries mine = variants.get(variant);
            RunSummaries theirs = variants.get(reference);
            if (mine == null || theirs == null || !mine.hasClass(jobClass) || !theirs.hasClass(jobClass)) {
                return Optional.empty();
            }
            double[] numerators = mine.perRun(jobClass, statistic);
            double[] denominators = theirs.perRun(jobClass, statistic);
            double[] ratios = new double[numerators.length];
            for (int run = 0; run < ratios.length; run++) {
                ratios[run] = numerators[run] / denominators[run];
                if (byBurstLength) {
                    ratios[run] *= theirs.burstLengths()[run] / mine.burstLengths()[run];
                }
            }
            return Optional.of(ratios);
        }

        /** The mean of {@code shown(ratio)} over runs against {@code reference}, and its range when there are several runs. */
        private static String spread(double[] ratios, DoubleUnaryOperator shown, String format, String reference) {
            double[] values = Arrays.stream(ratios).map(shown).toArray();
            String text = String.format(Locale.ROOT, format, Arrays.stream(values).average().orElseThrow()) + " vs " + reference;
            if (values.length < 2) {
                return text;
            }
            return text + String.format(Locale.ROOT, " (runs " + format + " to " + format + ")",
                    Arrays.stream(values).min().orElseThrow(), Arrays.stream(values).max().orElseThrow());
        }
    }

    /** Between two requests of a burst: far below any answer's time, enough for each to arrive before the next. */
    static final double SPACING_SECONDS = 0.002;

    private BurstBenchmark() {}

    /** The burst against a replay backend started for it. */
    public static Result run(Settings settings) throws IOException, InterruptedException {
        AnswerBook answers = AnswerBook.of(settings.workload());
        // A burst keeps the backend busy for the workload's whole service time, spread over its slots.
        double burstSeconds = settings.workload().stream().mapToDouble(e -> settings.speed().seconds(e.answerTokens())).sum()
                / settings.slots();
        Duration expected = Duration.ofMillis(Math.round(settings.variants().size() * settings.runs() * burstSeconds * 1000));
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .answers(answers).slots(settings.backendSlots()).speed(settings.speed())
                .batchSlowdown(settings.batchSlowdown()).build())) {
            return run(settings.workload(), settings.variants(), settings.runs(), expected, (variant, requests) ->
                    LoadSession.run(backend, answers, variant, requests, settings.triageFlags(), settings.api()));
        }
    }

    /** The burst against a real server, through a relay started for it. */
    public static Result run(ServerSettings settings) throws IOException, InterruptedException {
        try (AnswerLengthRelay relay = AnswerLengthRelay.start(settings.server())) {
            return run(settings.workload(), settings.variants(), settings.runs(), null,
                    (variant, requests) -> LoadSession.run(relay, variant, requests, settings.triageFlags(), settings.preemption()));
        }
    }

    /**
     * Runs one after the other, every variant within a run, so a drift in the machine's speed touches them alike.
     *
     * @param expected how long all runs should take, if known
     */
    private static Result run(List<WorkloadEntry> workload, List<LoadVariant> variants, int runs, Duration expected,
            LoadSession.Runner runner) throws IOException, InterruptedException {
        Map<String, RunSummaries> summaries = new LinkedHashMap<>();
        variants.forEach(variant -> summaries.put(variant.name(), new RunSummaries(variant.name())));
        Progress progress = Progress.start("burst load runs (" + workload.size() + " requests each)",
                (long) variants.size() * runs, expected);
        for (int run = 0; run < runs; run++) {
            List<LoadRequest> burst = burst(workload, run);
            for (LoadVariant variant : variants) {
                summaries.get(variant.name()).add(runner.run(variant, burst));
                progress.step();
            }
        }
        progress.done();
        return new Result(summaries);
    }

    /**
     * The workload in an order shuffled by the run's seed, sent {@link #SPACING_SECONDS} apart. Sent at
     * the same instant, the requests would reach Triage in whatever order their connections won, which
     * is neither the shuffle nor repeatable, and FCFS, which serves exactly that order, would measure
     * the race: its short median moved between 4 and 9 s from run to run on the same shuffle.
     */
    static List<LoadRequest> burst(List<WorkloadEntry> workload, long seed) {
        List<WorkloadEntry> order = new ArrayList<>(workload);
        Collections.shuffle(order, new Random(seed));
        List<LoadRequest> burst = new ArrayList<>(order.size());
        for (int i = 0; i < order.size(); i++) {
            burst.add(new LoadRequest(order.get(i), i * SPACING_SECONDS));
        }
        return burst;
    }
}
