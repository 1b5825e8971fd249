package dev.triage.bench.sim;

import dev.triage.bench.plot.ConvergenceChart;
import dev.triage.bench.stats.MeanSd;
import dev.triage.model.LengthClass;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.scheduler.ewsjf.MetaOptimizer;
import dev.triage.proxy.scheduler.ewsjf.SizeFeature;
import dev.triage.proxy.scheduler.ewsjf.Theta;
import dev.triage.proxy.scheduler.ewsjf.Trial;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * {@code simulate ewsjf}: EWSJF against fcfs, sjf, hrrn and laps on the real traces' requests (their prompt
 * and answer lengths, in trace order) and on a workload that shifts from one trace to the other
 * mid-run, on a serial and a batched backend, with Poisson arrivals at a utilisation ρ. Reports
 * throughput, the short requests' time-to-first-token P50, the long requests' P95 and the mean
 * sojourn time per policy (mean ± sd over seeds), and the meta-optimizer's reward per trial.
 *
 * <p>sjf, hrrn, laps and {@code ewsjf-estimate} order by log-normal estimates of each job's service time
 * (σ = 0.5, as a regressor off by a factor 1.6 typically); {@code ewsjf} sizes by the prompt, which is
 * known exactly on arrival, as the paper does. ρ is nominal: the offered work over the slots, each
 * job counted at its time alone; on a batched backend decoding together slows each job down.
 */
public final class EwsjfExperiment {

    static final String AZURE = "traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv";
    static final String MOONCAKE = "traces/mooncake/conversation_trace.jsonl";
    static final double ESTIMATE_SIGMA = 0.5;
    /** Trials of the replayed study: three random, then the Gaussian process's. */
    static final int REPLAYED_TRIALS = 20;
    /** A trial interval longer than any replay, so that a replay is one trial. */
    static final Duration WHOLE_RUN = Duration.ofDays(3650);

    /** A workload: parts of traces one after the other, each at its own rate for ρ. */
    record Scenario(String name, List<Part> parts) {}

    record Part(TraceFile trace, int requests) {}

    /** The results of one scenario, backend and policy over the seeds. */
    record Row(String scenario, String backend, String policy, MeanSd requestsPerSecond, MeanSd tokensPerSecond,
            MeanSd shortTtftP50, MeanSd longP95, MeanSd mean, double shortCount, double longCount) {}

    private final List<Scenario> scenarios;
    private final Map<String, SimulatedBackend> backends;
    private final ServiceTimeModel speed;
    private final double rho;
    private final List<Long> seeds;
    private final EwsjfSettings ewsjf;

    EwsjfExperiment(List<Scenario> scenarios, Map<String, SimulatedBackend> backends, ServiceTimeModel speed, double rho,
            List<Long> seeds, EwsjfSettings ewsjf) {
        this.scenarios = List.copyOf(scenarios);
        this.backends = new LinkedHashMap<>(backends);
        this.speed = speed;
        this.rho = rho;
        this.seeds = List.copyOf(seeds);
        this.ewsjf = ewsjf;
    }

    /**
     * The traces' scenarios: Azure conversations, Mooncake conversations, and the first half of the
     * Azure ones followed by the first half of the Mooncake ones, {@code requests} in each.
     */
    static List<Scenario> traceScenarios(Path data, int requests) throws IOException {
        TraceFile azure = TraceFile.read(data.resolve(AZURE));
        TraceFile mooncake = TraceFile.read(data.resolve(MOONCAKE));
        return List.of(
                new Scenario("azure", List.of(new Part(azure, requests))),
                new Scenario("mooncake", List.of(new Part(mooncake, requests))),
                new Scenario("azure→mooncake", List.of(new Part(azure, requests / 2), new Part(mooncake, requests - requests / 2))));
    }

    /**
     * The policies compared: the baselines, laps with its defaults (by the same estimates as sjf), ewsjf
     * as the paper has it, with the estimate as size, and untuned.
     */
    List<PolicyVariant> variants() {
        return List.of(
                PolicyVariant.parse("fcfs", Duration.ZERO),
                PolicyVariant.parse("sjf", Duration.ZERO),
                PolicyVariant.parse("hrrn", Duration.ZERO),
                PolicyVariant.parse("laps", Duration.ZERO),
                new PolicyVariant("ewsjf", Policy.EWSJF, Duration.ZERO, false, ewsjf),
                new PolicyVariant("ewsjf-estimate", Policy.EWSJF, Duration.ZERO, false, ewsjf.withSizeFeature(SizeFeature.ESTIMATE)),
                new PolicyVariant("ewsjf-untuned", Policy.EWSJF, Duration.ZERO, false, ewsjf.withTuning(false, ewsjf.initialTheta())));
    }

    /** Runs everything, writes {@code summary.csv}, {@code trials.csv} and {@code convergence.png}, and returns the tables. */
    String run(Path out) throws IOException {
        Files.createDirectories(out);
        List<Row> rows = new ArrayList<>();
        Map<String, List<Trial>> convergence = new LinkedHashMap<>();
        for (Scenario scenario : scenarios) {
            for (Map.Entry<String, SimulatedBackend> backend : backends.entrySet()) {
                Map<String, List<SimulationRun>> runs = new LinkedHashMap<>();
                for (long seed : seeds) {
                    Workload workload = workload(scenario, backend.getValue().slots(), seed);
                    for (PolicyVariant variant : variants()) {
                        SimulationRun run = Simulation.run(workload, variant, backend.getValue());
                        runs.computeIfAbsent(variant.name(), k -> new ArrayList<>()).add(run);
                        if (seed == seeds.get(0) && variant.name().equals("ewsjf")) {
                            convergence.put(scenario.name() + ", " + backend.getKey(), run.trials());
                        }
                    }
                }
                runs.forEach((policy, perSeed) -> rows.add(row(scenario.name(), backend.getKey(), policy, perSeed)));
            }
        }
        writeCsv(out.resolve("summary.csv"), rows);
        writeTrials(out.resolve("trials.csv"), convergence);
        ConvergenceChart.write(out.resolve("convergence.png"), "EWSJF's meta-optimizer on live traffic: reward per trial (seed " + seeds.get(0) + ")",
                rewards(convergence), ConvergenceChart.Summary.MOVING_MEAN);
        return markdown(rows) + "\n" + settlingTable(convergence) + "\n" + replayedTrials(out);
    }

    /**
     * The optimizer alone, without the traffic's drift: every trial replays the same workload (the
     * first fifth of each scenario's requests, on the batched backend, first seed) with the proposed
     * Θ, scored by the same reward over the whole replay. Writes {@code replayed-trials.csv} and
     * {@code replayed-convergence.png}.
     */
    String replayedTrials(Path out) throws IOException {
        Map.Entry<String, SimulatedBackend> backend = backends.entrySet().stream().reduce((first, second) -> second).orElseThrow();
        Map<String, List<Double>> rewards = new LinkedHashMap<>();
        StringBuilder table = new StringBuilder("| replayed workload (" + backend.getKey() + ") | trials | within 5% of the best at trial | "
                + "default Θ: reward, mean (s), short TTFT P50 (s) | best Θ: reward, mean (s), short TTFT P50 (s) | best Θ |\n"
                + "|---|---:|---:|---|---|---|\n");
        try (Writer csv = Files.newBufferedWriter(out.resolve("replayed-trials.csv"), StandardCharsets.UTF_8)) {
            csv.write("workload,trial,reward,mean_s,short_ttft_p50_s,urgency_slope,urgency_base,fairness_slope,fairness_base,alpha\n");
            for (Scenario scenario : scenarios) {
                Scenario shorter = new Scenario(scenario.name(), scenario.parts().stream()
                        .map(part -> new Part(part.trace(), Math.max(2, part.requests() / 5))).toList());
                Workload workload = workload(shorter, backend.getValue().slots(), seeds.get(0));
                MetaOptimizer optimizer = new MetaOptimizer(seeds.get(0), 3, 40);
                Theta theta = ewsjf.initialTheta();
                List<Double> scenarioRewards = new ArrayList<>();
                SimulationRun first = null;
                SimulationRun best = null;
                Theta bestTheta = theta;
                for (int trial = 1; trial <= REPLAYED_TRIALS; trial++) {
                    EwsjfSettings oneTrial = ewsjf.withTuning(true, theta).withIntervals(ewsjf.refineInterval(), WHOLE_RUN);
                    SimulationRun run = Simulation.run(workload, new PolicyVariant("ewsjf", Policy.EWSJF, Duration.ZERO, false, oneTrial),
                            backend.getValue());
                    double reward = run.openTrial().reward();
                    scenarioRewards.add(reward);
                    first = first == null ? run : first;
                    if (best == null || reward > best.openTrial().reward()) {
                        best = run;
                        bestTheta = theta;
                    }
                    csv.write(String.format(Locale.ROOT, "\"%s\",%d,%.5f,%.4f,%.4f,%.5f,%.5f,%.5f,%.5f,%.4f%n", scenario.name(), trial, reward,
                            run.meanSojournSeconds(), run.timeToFirstToken(LengthClass.SHORT.label()).p50(), theta.urgencySlope(),
                            theta.urgencyBase(), theta.fairnessSlope(), theta.fairnessBase(), theta.alpha()));
                    optimizer.observe(theta, reward);
                    theta = optimizer.propose();
                }
                rewards.put(scenario.name(), scenarioRewards);
                table.append(String.format(Locale.ROOT, "| %s | %d | %d | %.3f, %.2f, %.2f | %.3f, %.2f, %.2f | %s |%n", scenario.name(),
                        REPLAYED_TRIALS, trialsToBest(scenarioRewards, 0.05), first.openTrial().reward(), first.meanSojournSeconds(),
                        first.timeToFirstToken(LengthClass.SHORT.label()).p50(), best.openTrial().reward(), best.meanSojournSeconds(),
                        best.timeToFirstToken(LengthClass.SHORT.label()).p50(), bestTheta));
            }
        }
        ConvergenceChart.write(out.resolve("replayed-convergence.png"),
                "EWSJF's meta-optimizer, every trial replaying the same workload: reward per trial", rewards,
                ConvergenceChart.Summary.BEST_SO_FAR);
        return table.toString();
    }

    /** The first trial whose best-so-far reward is within {@code share} of the way from the first reward to the best. */
    static int trialsToBest(List<Double> rewards, double share) {
        double best = rewards.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        double target = best - share * (best - rewards.get(0));
        double soFar = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < rewards.size(); i++) {
            soFar = Math.max(soFar, rewards.get(i));
            if (soFar >= target) {
                return i + 1;
            }
        }
        return rewards.size();
    }

    /** Poisson arrivals at ρ for each part in turn, the parts' requests in trace order, log-normal estimates. */
    Workload workload(Scenario scenario, int slots, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<JobSize> jobs = new ArrayList<>();
        List<Double> times = new ArrayList<>();
        double start = 0;
        for (Part part : scenario.parts()) {
            List<JobSize> partJobs = part.trace().jobs(part.requests(), speed);
            double meanService = partJobs.stream().mapToDouble(JobSize::serviceSeconds).average().orElseThrow();
            double[] partTimes = ArrivalProcess.Poisson.atUtilisation(rho, meanService, slots).times(partJobs.size(), random.split());
            for (double time : partTimes) {
                times.add(start + time);
            }
            start += partTimes[partTimes.length - 1];
            jobs.addAll(partJobs);
        }
        return Workload.of(times.stream().mapToDouble(Double::doubleValue).toArray(), jobs,
                new EstimateModel.LogNormalNoise(ESTIMATE_SIGMA), random.nextLong());
    }

    private static Row row(String scenario, String backend, String policy, List<SimulationRun> runs) {
        String shortClass = LengthClass.SHORT.label();
        String longClass = LengthClass.LONG.label();
        return new Row(scenario, backend, policy,
                over(runs, SimulationRun::requestsPerSecond),
                over(runs, SimulationRun::tokensPerSecond),
                over(runs, run -> run.timeToFirstToken(shortClass).p50()),
                over(runs, run -> run.sojourn(longClass).p95()),
                over(runs, SimulationRun::meanSojournSeconds),
                runs.stream().mapToInt(run -> run.sojourn(shortClass).count()).average().orElse(0),
                runs.stream().mapToInt(run -> run.sojourn(longClass).count()).average().orElse(0));
    }

    private static MeanSd over(List<SimulationRun> runs, ToDoubleFunction<SimulationRun> statistic) {
        return MeanSd.of(runs.stream().mapToDouble(statistic).toArray());
    }

    private static void writeCsv(Path file, List<Row> rows) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writer.write("scenario,backend,policy,requests_per_s,requests_per_s_sd,tokens_per_s,tokens_per_s_sd,short_ttft_p50_s,"
                    + "short_ttft_p50_sd_s,long_p95_s,long_p95_sd_s,mean_s,mean_sd_s,short_requests,long_requests\n");
            for (Row row : rows) {
                writer.write(String.format(Locale.ROOT, "\"%s\",\"%s\",%s,%.4f,%.4f,%.3f,%.3f,%.4f,%.4f,%.3f,%.3f,%.4f,%.4f,%.0f,%.0f%n",
                        row.scenario(), row.backend(), row.policy(), row.requestsPerSecond().mean(), row.requestsPerSecond().sd(),
                        row.tokensPerSecond().mean(), row.tokensPerSecond().sd(), row.shortTtftP50().mean(), row.shortTtftP50().sd(),
                        row.longP95().mean(), row.longP95().sd(), row.mean().mean(), row.mean().sd(), row.shortCount(), row.longCount()));
            }
        }
    }

    private static void writeTrials(Path file, Map<String, List<Trial>> convergence) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writer.write("run,trial,reward,compactness,balance,proliferation,latency,completions,queues,urgency_slope,urgency_base,"
                    + "fairness_slope,fairness_base,alpha\n");
            for (Map.Entry<String, List<Trial>> run : convergence.entrySet()) {
                for (Trial trial : run.getValue()) {
                    var r = trial.reward();
                    var t = trial.theta();
                    writer.write(String.format(Locale.ROOT, "\"%s\",%d,%.5f,%.5f,%.5f,%.5f,%.5f,%d,%d,%.5f,%.5f,%.5f,%.5f,%.4f%n",
                            run.getKey(), trial.index(), r.reward(), r.compactness(), r.balance(), r.proliferation(), r.latency(),
                            trial.completions(), trial.queues(), t.urgencySlope(), t.urgencyBase(), t.fairnessSlope(),
                            t.fairnessBase(), t.alpha()));
                }
            }
        }
    }

    private static Map<String, List<Double>> rewards(Map<String, List<Trial>> convergence) {
        Map<String, List<Double>> rewards = new LinkedHashMap<>();
        convergence.forEach((run, trials) -> rewards.put(run, trials.stream().map(t -> t.reward().reward()).toList()));
        return rewards;
    }

    /**
     * When the reward settles: the first trial from which the mean reward of the next five stays within
     * 10% of the reward's range of the mean over the last third of the run.
     */
    static int settlingTrial(List<Double> rewards) {
        int window = 5;
        if (rewards.size() < 3 * window) {
            return -1;
        }
        double plateau = rewards.subList(rewards.size() * 2 / 3, rewards.size()).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        double range = rewards.stream().mapToDouble(Double::doubleValue).max().orElseThrow()
                - rewards.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        for (int start = 0; start + window <= rewards.size(); start++) {
            boolean settled = true;
            for (int from = start; from + window <= rewards.size() && settled; from++) {
                double mean = rewards.subList(from, from + window).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
                settled = Math.abs(mean - plateau) <= 0.1 * range;
            }
            if (settled) {
                return start + 1;
            }
        }
        return -1;
    }

    private static String settlingTable(Map<String, List<Trial>> convergence) {
        StringBuilder text = new StringBuilder("| run (ewsjf, seed 0) | trials | settled at trial | first reward | settled reward | Θ at the end |\n"
                + "|---|---:|---:|---:|---:|---|\n");
        convergence.forEach((run, trials) -> {
            List<Double> rewards = trials.stream().map(t -> t.reward().reward()).toList();
            int settled = settlingTrial(rewards);
            double plateau = rewards.isEmpty() ? Double.NaN
                    : rewards.subList(rewards.size() * 2 / 3, rewards.size()).stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
            text.append(String.format(Locale.ROOT, "| %s | %d | %s | %.3f | %.3f | %s |%n", run, trials.size(),
                    settled < 0 ? "—" : Integer.toString(settled), rewards.isEmpty() ? Double.NaN : rewards.get(0), plateau,
                    trials.isEmpty() ? "—" : trials.get(trials.size() - 1).theta()));
        });
        return text.toString();
    }

    static String markdown(List<Row> rows) {
        StringBuilder text = new StringBuilder();
        String current = null;
        for (Row row : rows) {
            String heading = row.scenario() + ", " + row.backend();
            if (!heading.equals(current)) {
                current = heading;
                text.append(String.format(Locale.ROOT, "%n**%s** (%.0f short, %.0f long requests per run)%n%n", heading,
                        row.shortCount(), row.longCount()));
                text.append("| policy | requests/s | tokens/s | short TTFT P50 (s) | long P95 (s) | mean (s) |\n|---|---:|---:|---:|---:|---:|\n");
            }
            text.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", row.policy(), cell(row.requestsPerSecond(), "%.3f"),
                    cell(row.tokensPerSecond(), "%.1f"), cell(row.shortTtftP50(), "%.2f"), cell(row.longP95(), "%.1f"), cell(row.mean(), "%.2f")));
        }
        return text.toString();
    }

    private static String cell(MeanSd value, String format) {
        return String.format(Locale.ROOT, format + " ± " + format, value.mean(), value.sd());
    }
}
