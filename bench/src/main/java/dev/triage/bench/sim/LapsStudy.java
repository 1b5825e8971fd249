package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.HeldOutWorkload;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.LengthClass;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.PromptSplit;
import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.LongFunction;

/**
 * {@code simulate laps}: chooses the {@code laps} settings on one part of the data and reports them,
 * beside the other policies and the bounds, on another.
 *
 * <p>Three workloads, each with the real classifier's and the real ranker's errors:
 * <ul>
 *   <li>{@code clairvoyant}: Clairvoyant's §5.5 mix (50/50 N(3.5 s, 0.8 s) / N(8.9 s, 2.0 s)), Poisson at ρ;</li>
 *   <li>{@code azure}: the Azure LLM conversation trace, its real arrivals time-scaled to ρ;</li>
 *   <li>{@code burst}: 12 short and 12 long held-out answers of the default answering model, all at once
 *       (the validation split holds only 14 short and 13 long of them).</li>
 * </ul>
 * The burst's estimates are the estimators' own, run on its prompts; the others borrow the estimators'
 * errors on held-out answers of the same length ({@link EstimateModel.Transplanted}). Tuning uses the
 * validation split's answers, the first half of the trace and seeds 0–4; the report uses the test
 * split's answers, the second half of the trace and seeds 5–9. Nothing the report shows was seen while
 * tuning.
 *
 * <p>Tuning is coordinate descent over a grid of each setting, twice round, minimising the mean
 * sojourn time over the non-preemptive oracle SJF's on the same workload, averaged over workloads,
 * estimators and seeds, among settings that do pause jobs (at least two preemptive levels): never
 * pausing is {@code sjf}, whose objective is reported beside. The simulated token rate is steady, so
 * δ cannot matter there and stays at its default; the window is the proxy's reporting granularity
 * and stays at 16 tokens.
 *
 * <p>A last table varies what decides whether pausing pays: the tail of the sizes (the trace's, or a
 * gamma of shape 0.25, whose hazard rate falls, so a job that has run long is likely to run longer),
 * the estimates' error and the cost of a resume.
 */
public final class LapsStudy {

    static final double RHO = 0.8;
    static final int CLAIRVOYANT_REQUESTS = 2000;
    static final int BURST_EACH = 12;
    static final List<Long> TUNING_SEEDS = List.of(0L, 1L, 2L, 3L, 4L);
    static final List<Long> REPORT_SEEDS = List.of(5L, 6L, 7L, 8L, 9L);
    static final ServiceTimeModel SERVICE_TIME = SimulatedBackend.DEFAULT_SERVICE_TIME;
    static final SimulatedBackend BACKEND = SimulatedBackend.of(1);

    /** Where tuning starts: one pause per job, early levels preemptive, γ = 0. */
    static final LapsSettings START = new LapsSettings(4, 4, 2, 16, 0, 0.2, 2, 2);

    /** The γ of the variant that keeps the paper's rule: first come, first served until a rate is seen. */
    static final int PAPER_GAMMA = 2;

    /** Each setting tuned and the values tried, in the order the descent visits them. */
    static final List<Map.Entry<String, List<String>>> GRID = List.of(
            Map.entry("levels", List.of("2", "3", "4", "6", "8")),
            Map.entry("growth", List.of("2", "4", "8")),
            Map.entry("first-level", List.of("0.25", "0.5", "1", "2", "4", "8")),
            Map.entry("stable-windows", List.of("0", "1", "2", "4")),
            Map.entry("preemptive-levels", List.of("2", "3", "4", "6", "8")),
            Map.entry("max-preemptions", List.of("1", "2", "4", "8")));

    private static final List<String> BASELINES = List.of("fcfs", "sjf", "hrrn", "oracle-sjf", PolicyVariant.SRPT);

    /** One workload with one estimator, its runs (one per seed) drawn once. */
    record Case(String workload, String estimator, List<Workload> runs) {
        String label() {
            return workload + ", " + estimator;
        }
    }

    /** Jobs per run of the conditions table's synthetic workload. */
    static final int CONDITIONS_REQUESTS = 10_000;

    private final LapsTuning tuning;
    private final List<Case> report;
    private final LapsTuning heavyTailTuning;
    private final Conditions conditions;

    /**
     * @param tuning where the defaults are chosen
     * @param report where they are shown beside the other policies
     * @param heavyTailTuning where settings for heavy-tailed sizes are chosen, for the conditions table
     * @param conditions the conditions table
     */
    LapsStudy(LapsTuning tuning, List<Case> report, LapsTuning heavyTailTuning, Conditions conditions) {
        this.tuning = tuning;
        this.report = List.copyOf(report);
        this.heavyTailTuning = heavyTailTuning;
        this.conditions = conditions;
    }

    /**
     * The study on the shared data: the Azure conversation trace and the held-out answers of
     * {@link HeldOutWorkload#DEFAULT_MODEL}, with the given estimators.
     */
    static LapsStudy onSharedData(Path data, List<JobEstimator<Prompt>> estimators) throws IOException {
        TraceFile trace = TraceFile.read(data.resolve("traces/azure_llm_2023/AzureLLMInferenceTrace_conv.csv"));
        PromptCorpus corpus = PromptCorpus.of(PromptResponseLoader.load(data.resolve("prompt_response")));
        int half = trace.records().size() / 2;
        TraceFile firstHalf = new TraceFile(trace.name() + " (first half)", trace.records().subList(0, half));
        TraceFile secondHalf = new TraceFile(trace.name() + " (second half)", trace.records().subList(half, 2 * half));
        List<Case> tuning = new ArrayList<>();
        List<Case> report = new ArrayList<>();
        List<PromptAnswer> validation = answers(corpus, PromptSplit.VALIDATION);
        List<PromptAnswer> test = answers(corpus, PromptSplit.TEST);
        List<EstimateModel> conditionEstimates = new ArrayList<>(List.of(new EstimateModel.LogNormalNoise(0.5),
                new EstimateModel.LogNormalNoise(1), new EstimateModel.LogNormalNoise(2)));
        for (JobEstimator<Prompt> estimator : estimators) {
            tuning.addAll(cases(estimator, validation, firstHalf, TUNING_SEEDS));
            report.addAll(cases(estimator, test, secondHalf, REPORT_SEEDS));
            conditionEstimates.add(transplanted(estimator, test));
        }
        double timeScale = secondHalf.utilisation(secondHalf.records().size(), SERVICE_TIME, BACKEND.slots()) / RHO;
        JobSizes heavyTail = new JobSizes.ClassMixture(List.of(
                new JobSizes.ClassMixture.Component(WorkloadOptions.SINGLE_CLASS, 1, new Distribution.Gamma(0.25, 12))));
        ArrivalProcess poisson = ArrivalProcess.Poisson.atUtilisation(RHO, heavyTail.meanServiceSeconds(), BACKEND.slots());
        Conditions conditions = new Conditions(List.of(
                new Conditions.Sizes("Azure trace (second half)",
                        (estimates, seed) -> secondHalf.workload(secondHalf.records().size(), SERVICE_TIME, timeScale, estimates, seed)),
                new Conditions.Sizes("gamma, shape 0.25, mean 3 s",
                        (estimates, seed) -> Workload.synthetic(poisson, heavyTail, estimates, CONDITIONS_REQUESTS, seed))),
                conditionEstimates, REPORT_SEEDS.subList(0, 3));
        EstimateModel poorEstimates = new EstimateModel.LogNormalNoise(2);
        LapsTuning heavyTailTuning = new LapsTuning(List.of(new Case("gamma, shape 0.25", poorEstimates.label(),
                draw(TUNING_SEEDS, seed -> Workload.synthetic(poisson, heavyTail, poorEstimates, CONDITIONS_REQUESTS, seed)))));
        return new LapsStudy(new LapsTuning(tuning), report, heavyTailTuning, conditions);
    }

    private static List<PromptAnswer> answers(PromptCorpus corpus, PromptSplit split) {
        return HeldOutWorkload.answers(corpus, HeldOutWorkload.LICENSED, HeldOutWorkload.DEFAULT_MODEL, List.of(split));
    }

    private static List<Case> cases(JobEstimator<Prompt> estimator, List<PromptAnswer> answers, TraceFile trace, List<Long> seeds) {
        EstimateModel errors = transplanted(estimator, answers);
        JobSizes clairvoyant = ClairvoyantTable9.sizes();
        ArrivalProcess poisson = ArrivalProcess.Poisson.atUtilisation(RHO, clairvoyant.meanServiceSeconds(), BACKEND.slots());
        double timeScale = trace.utilisation(trace.records().size(), SERVICE_TIME, BACKEND.slots()) / RHO;
        EstimateModel ownEstimates = new EstimateModel.FromEstimator(estimator, SERVICE_TIME);
        return List.of(
                new Case("clairvoyant", estimator.name(), draw(seeds,
                        seed -> Workload.synthetic(poisson, clairvoyant, errors, CLAIRVOYANT_REQUESTS, seed))),
                new Case("azure", estimator.name(), draw(seeds,
                        seed -> trace.workload(trace.records().size(), SERVICE_TIME, timeScale, errors, seed))),
                new Case("burst", estimator.name(), draw(seeds, seed -> burst(answers, ownEstimates, seed))));
    }

    private static List<Workload> draw(List<Long> seeds, LongFunction<Workload> workload) {
        return seeds.stream().map(workload::apply).toList();
    }

    /** The estimator's estimates of the answers, beside their real lengths. */
    static EstimateModel.Transplanted transplanted(JobEstimator<Prompt> estimator, List<PromptAnswer> answers) {
        List<Estimate> estimates = estimator.estimateAll(answers.stream().map(answer -> new Prompt(answer.prompt())).toList());
        List<EstimateModel.Measured> measured = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            measured.add(new EstimateModel.Measured(Math.max(1, estimates.get(i).expectedTokens()),
                    Math.max(1, answers.get(i).answerTokens())));
        }
        return new EstimateModel.Transplanted(estimator.name(), measured, SERVICE_TIME);
    }

    /** {@link #BURST_EACH} short and as many long answers, in an order set by the seed, all at t = 0. */
    static Workload burst(List<PromptAnswer> answers, EstimateModel estimates, long seed) {
        List<JobSize> shorts = new ArrayList<>();
        List<JobSize> longs = new ArrayList<>();
        for (PromptAnswer answer : answers) {
            LengthClass cls = LengthClass.of(answer.answerTokens());
            double seconds = SERVICE_TIME.seconds(answer.answerTokens());
            JobSize size = new JobSize(cls.label(), seconds, answer.prompt(), 0, 0, seconds);
            if (cls == LengthClass.SHORT) {
                shorts.add(size);
            } else if (cls == LengthClass.LONG) {
                longs.add(size);
            }
        }
        Random random = new Random(seed);
        Collections.shuffle(shorts, random);
        Collections.shuffle(longs, random);
        List<JobSize> jobs = new ArrayList<>(shorts.subList(0, BURST_EACH));
        jobs.addAll(longs.subList(0, BURST_EACH));
        Collections.shuffle(jobs, random);
        return Workload.of(new double[jobs.size()], jobs, estimates, seed);
    }

    /**
     * Tunes, writes {@code tuning.csv}, {@code tuning-heavy-tail.csv}, {@code report.csv} and
     * {@code laps.md} to {@code out}, and returns the markdown.
     */
    public String run(Path out) throws IOException {
        LapsSettings tuned = tuning.tune(START);
        LapsSettings heavyTail = heavyTailTuning.tune(START);
        Files.createDirectories(out);
        tuning.writeCsv(out.resolve("tuning.csv"));
        heavyTailTuning.writeCsv(out.resolve("tuning-heavy-tail.csv"));
        PolicyVariant sjf = PolicyVariant.parse("sjf", Duration.ZERO);
        List<SummaryRow> rows = new ArrayList<>();
        StringBuilder md = new StringBuilder();
        md.append("## laps, tuned\n\n").append(String.format(Locale.ROOT,
                "`%s`: objective %.4f (mean sojourn over oracle SJF's on the tuning data); sjf: %.4f%n%n",
                tuned.describe(), tuning.score(tuned), tuning.score(sjf)));
        md.append(String.format(Locale.ROOT, "On heavy-tailed sizes: `%s`: objective %.4f; sjf: %.4f%n%n",
                heavyTail.describe(), heavyTailTuning.score(heavyTail), heavyTailTuning.score(sjf)));
        for (Case c : report) {
            md.append("### ").append(c.label()).append("\n\n");
            md.append(table(c, variants(tuned, heavyTail), rows));
        }
        Map<String, LapsSettings> settings = new LinkedHashMap<>();
        settings.put("defaults", tuned);
        settings.put("heavy-tail", heavyTail);
        md.append(conditions.markdown(settings));
        SummaryCsv.write(out.resolve("report.csv"), rows);
        Files.writeString(out.resolve("laps.md"), md.toString(), StandardCharsets.UTF_8);
        return md.toString();
    }

    /**
     * The report's policies: the baselines, tuned laps, laps keeping the paper's FCFS rule, laps with a
     * spare KV slot, and laps with the settings tuned on heavy-tailed sizes.
     */
    static List<Contender> variants(LapsSettings tuned, LapsSettings heavyTail) {
        List<Contender> variants = new ArrayList<>();
        for (String name : BASELINES) {
            variants.add(new Contender(PolicyVariant.parse(name, Duration.ZERO), BACKEND));
        }
        PolicyVariant laps = PolicyVariant.parse("laps", Duration.ZERO, tuned);
        variants.add(new Contender(laps, BACKEND));
        variants.add(new Contender(laps.withLaps("laps γ=" + PAPER_GAMMA, tuned.with("stable-windows=" + PAPER_GAMMA)), BACKEND));
        variants.add(new Contender(laps.withLaps("laps + spare KV slot", tuned),
                BACKEND.withSpareSlots(1)));
        variants.add(new Contender(laps.withLaps("laps, heavy-tail settings", heavyTail), BACKEND));
        return variants;
    }

    /** A policy and the backend it runs on. */
    record Contender(PolicyVariant variant, SimulatedBackend backend) {}

    private static String table(Case c, List<Contender> contenders, List<SummaryRow> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| policy | mean (s) | mean / oracle SJF | mean / SJF | short P50 (s) | long P95 (s) | pauses per job |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|\n");
        Map<String, Map<String, SummaryRow>> byPolicy = new LinkedHashMap<>();
        Map<String, Double> pauses = new LinkedHashMap<>();
        for (Contender contender : contenders) {
            Map<String, List<LatencyStats>> perClass = new LinkedHashMap<>();
            long paused = 0;
            long jobs = 0;
            for (Workload workload : c.runs()) {
                SimulationRun run = Simulation.run(workload, contender.variant(), contender.backend());
                for (String jobClass : List.of(JobClasses.ALL, "short", "long")) {
                    perClass.computeIfAbsent(jobClass, k -> new ArrayList<>()).add(run.sojourn(jobClass));
                }
                paused += run.pauses();
                jobs += workload.size();
            }
            String name = contender.variant().name();
            Map<String, SummaryRow> classes = new LinkedHashMap<>();
            perClass.forEach((jobClass, stats) -> classes.put(jobClass, SummaryRow.over(c.label() + ": " + name, jobClass, stats, 0)));
            rows.addAll(classes.values());
            byPolicy.put(name, classes);
            pauses.put(name, (double) paused / jobs);
        }
        double oracle = byPolicy.get("oracle-sjf").get(JobClasses.ALL).seconds(Statistic.MEAN);
        double sjf = byPolicy.get("sjf").get(JobClasses.ALL).seconds(Statistic.MEAN);
        byPolicy.forEach((name, classes) -> {
            SummaryRow all = classes.get(JobClasses.ALL);
            md.append(String.format(Locale.ROOT, "| %s | %.2f ± %.2f | %.3f | %.3f | %.2f | %.2f | %.2f |%n", name,
                    all.seconds(Statistic.MEAN), all.sd(Statistic.MEAN), all.seconds(Statistic.MEAN) / oracle,
                    all.seconds(Statistic.MEAN) / sjf, classes.get("short").seconds(Statistic.P50),
                    classes.get("long").seconds(Statistic.P95), pauses.get(name)));
        });
        md.append('\n');
        return md.toString();
    }

}
