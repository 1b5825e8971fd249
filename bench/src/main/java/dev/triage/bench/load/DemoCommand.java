package dev.triage.bench.load;

import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.bench.workload.WorkloadFile;
import dev.triage.model.cli.Flags;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code scripts/demo}: Triage's point in a few minutes, with nothing but Java. A serial replay backend
 * and Triage start in this process; the shipped burst of held-out chat requests is sent within 0.14 s,
 * in {@value #RUNS} shuffled orders, first with Triage first-come-first-served, then shortest-job-first
 * with its default estimator (the ranker) and with the lexical trees that stand in for it, then
 * shortest-job-first on the true lengths for reference; a table shows what short and long requests
 * waited, on average over the orders. {@code --api ollama} sends the chats to Ollama's {@code /api/chat}
 * instead of OpenAI's {@code /v1/chat/completions}.
 */
public final class DemoCommand {

    /** Fast enough for a demo of a few minutes; one slot, like Ollama's default. */
    static final ServiceTimeModel SPEED = new ServiceTimeModel(0.01, 0.0003);

    /**
     * Orders the burst is sent in. FCFS serves a burst in the order it arrives, so one order alone
     * can flatter it or not: on the first shuffle its short median is 4.4 s, about half of what a
     * random order gives on average.
     */
    static final int RUNS = 3;

    static final String USAGE = "usage: demo [--api openai|ollama]\n";

    private DemoCommand() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        ChatApi api;
        try {
            Flags flags = Flags.parse(args);
            api = ChatApi.parse(flags.string("api", "openai"));
            flags.finish();
        } catch (IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        // The demo prints a table; Triage's start-up and request lines would drown it.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        List<WorkloadEntry> workload = WorkloadFile.readResource(BenchCommand.DEFAULT_WORKLOAD);
        long shorts = workload.stream().filter(e -> e.jobClass().equals("short")).count();
        System.out.printf(Locale.ROOT, "Triage demo: %d short and %d long chat requests arrive within 0.14 s at a serial backend%n"
                + "(the replay backend: %.0f ms + %.1f ms per token; held-out prompts, Llama 3.1 8B's answer lengths),%n"
                + "streamed from %s, in " + RUNS + " shuffled orders; about 3.5 minutes on 2 cores.%n%n",
                shorts, workload.size() - shorts, SPEED.baseSeconds() * 1e3, SPEED.secondsPerToken() * 1e3, api.path());
        List<LoadVariant> variants = List.of(LoadVariant.parse("fcfs", Duration.ZERO), LoadVariant.parse("sjf", Duration.ZERO),
                LoadVariant.parse("oracle-sjf", Duration.ZERO));
        BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.Settings(workload, variants, RUNS, SPEED, 1, List.of(), api));
        BurstBenchmark.Result lexical = BurstBenchmark.run(new BurstBenchmark.Settings(workload, List.of(variants.get(1)), RUNS, SPEED,
                1, List.of("--estimator", "lexical"), api));
        System.out.printf(Locale.ROOT, "%-34s %10s %10s %10s %10s   seconds, end to end (mean over the orders)%n", "", "short P50", "short P95",
                "long P50", "long P95");
        print(result, "fcfs", "FCFS (what the backend does alone)");
        print(result, "sjf", "SJF, Triage's default (the ranker)");
        print(lexical, "sjf", "SJF, --estimator lexical");
        print(result, "oracle-sjf", "SJF, true lengths (the bound)");
        System.out.println();
        printChange(result, result, "sjf", "sjf");
        printChange(result, lexical, "sjf", "sjf, lexical");
        printChange(result, result, "oracle-sjf", "oracle-sjf");
    }

    private static void print(BurstBenchmark.Result result, String variant, String label) {
        System.out.printf(Locale.ROOT, "%-34s %10.2f %10.2f %10.2f %10.2f%n", label,
                seconds(result, variant, "short", Statistic.P50), seconds(result, variant, "short", Statistic.P95),
                seconds(result, variant, "long", Statistic.P50), seconds(result, variant, "long", Statistic.P95));
    }

    /** Short P50 and long P95 of {@code variant} in {@code result} against FCFS in {@code baseline}. */
    private static void printChange(BurstBenchmark.Result baseline, BurstBenchmark.Result result, String variant, String label) {
        System.out.printf(Locale.ROOT, "%-12s short P50 %+.0f%%, long P95 %+.0f%% against FCFS%n", label,
                change(baseline, result, variant, "short", Statistic.P50), change(baseline, result, variant, "long", Statistic.P95));
    }

    private static double change(BurstBenchmark.Result baseline, BurstBenchmark.Result result, String variant, String jobClass,
            Statistic statistic) {
        return 100 * (seconds(result, variant, jobClass, statistic) / seconds(baseline, "fcfs", jobClass, statistic) - 1);
    }

    private static double seconds(BurstBenchmark.Result result, String variant, String jobClass, Statistic statistic) {
        return result.seconds(variant, jobClass, statistic).orElseThrow();
    }
}
