package dev.triage.bench.load;

import dev.triage.bench.Flags;
import dev.triage.bench.plot.LatencyVsLoadChart;
import dev.triage.bench.sim.LoadSweep;
import dev.triage.bench.sim.SummaryCsv;
import dev.triage.bench.sim.SummaryTable;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.bench.workload.WorkloadFile;
import dev.triage.proxy.config.ServiceTimeModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code scripts/bench}: load through the real proxy and the replay backend, over loopback HTTP.
 *
 * <pre>
 * bench burst   [--workload FILE] [--runs 5] [--variants V,...] [--tau 5] [--out DIR]
 * bench poisson [--workload FILE] [--rho 0.5,0.7,0.8,0.9] [--requests 200] [--seeds 2] [--variants V,...] [--out DIR]
 * common: --slots 1 --prefill-seconds 0.01 --seconds-per-token 0.0005 --estimator NAME
 * </pre>
 */
public final class BenchCommand {

    static final String USAGE = """
            usage: bench burst   [--workload FILE] [--runs 5] [--variants V,...] [--tau SECONDS] [--out DIR]
                   bench poisson [--workload FILE] [--rho R,...] [--requests 200] [--seeds 2] [--variants V,...] [--tau SECONDS] [--out DIR]
            common: --slots 1  --prefill-seconds 0.01  --seconds-per-token 0.0005  --estimator NAME (Triage's default when unset)
            variants: direct, [oracle-]fcfs|sjf|hrrn[-tau]
            the default workload is the held-out burst of 50 short and 50 long prompts shipped in the bench jar
            """;

    /** The workload used when none is named: held-out prompts, 50 short and 50 long. */
    static final String DEFAULT_WORKLOAD = "/workloads/burst.jsonl";

    private BenchCommand() {}

    public static void main(String[] args) {
        try {
            System.out.print(run(Flags.parse(args)));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.exit(130);
        }
    }

    static String run(Flags flags) throws IOException, InterruptedException {
        List<String> words = flags.positional();
        if (words.size() != 1) {
            throw new IllegalArgumentException("expected one command, got " + words);
        }
        List<WorkloadEntry> workload = workload(flags.optional("workload").map(Path::of).orElse(null));
        Duration tau = Duration.ofMillis((long) (flags.number("tau", 5) * 1000));
        int slots = flags.integer("slots", 1);
        ServiceTimeModel speed = new ServiceTimeModel(flags.number("prefill-seconds", 0.01),
                flags.number("seconds-per-token", 0.0005));
        List<String> triageFlags = flags.optional("estimator").map(e -> List.of("--estimator", e)).orElse(List.of());
        Path out = flags.optional("out").map(Path::of).orElse(null);
        switch (words.get(0)) {
            case "burst": {
                List<LoadVariant> variants = variants(flags, List.of("fcfs", "sjf", "sjf-tau", "hrrn", "oracle-sjf"), tau);
                int runs = flags.integer("runs", 5);
                flags.finish();
                BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.Settings(workload, variants, runs, speed,
                        slots, triageFlags));
                String report = "end-to-end latency (s), mean ± sd over " + runs + " runs\n"
                        + SummaryTable.markdown(result.endToEnd()) + "\ntime to first token (s)\n"
                        + SummaryTable.markdown(result.firstToken()) + "\n" + result.findings();
                if (out != null) {
                    Files.createDirectories(out);
                    SummaryCsv.write(out.resolve("burst-e2e.csv"), result.endToEnd());
                    SummaryCsv.write(out.resolve("burst-ttft.csv"), result.firstToken());
                    Files.writeString(out.resolve("burst.md"), report);
                }
                return report;
            }
            case "poisson": {
                List<LoadVariant> variants = variants(flags, List.of("fcfs", "sjf", "sjf-tau", "hrrn", "oracle-sjf"), tau);
                List<Double> rhos = flags.numbers("rho", List.of(0.5, 0.7, 0.8, 0.9));
                int requests = flags.integer("requests", 200);
                int seeds = flags.integer("seeds", 2);
                flags.finish();
                List<LoadSweep.Point> points = PoissonBenchmark.run(new PoissonBenchmark.Settings(workload, variants, rhos,
                        requests, seeds, speed, slots, triageFlags));
                if (out != null) {
                    Files.createDirectories(out);
                    LoadSweep.writeCsv(out.resolve("poisson.csv"), points);
                    LatencyVsLoadChart.write(out.resolve("latency-vs-load.png"), "Through Triage: replay backend, "
                            + slots + " slot" + (slots == 1 ? "" : "s") + ", Poisson arrivals",
                            points, variants.stream().map(LoadVariant::name).toList());
                }
                StringBuilder report = new StringBuilder();
                for (LoadSweep.Point point : points) {
                    report.append("rho ").append(point.rho()).append('\n').append(SummaryTable.markdown(point.rows())).append('\n');
                }
                return report.toString();
            }
            default:
                throw new IllegalArgumentException("unknown command " + words.get(0));
        }
    }

    private static List<LoadVariant> variants(Flags flags, List<String> fallback, Duration tau) {
        return flags.words("variants", fallback).stream().map(name -> LoadVariant.parse(name, tau)).toList();
    }

    static List<WorkloadEntry> workload(Path file) throws IOException {
        return file != null ? WorkloadFile.read(file) : WorkloadFile.readResource(DEFAULT_WORKLOAD);
    }
}
