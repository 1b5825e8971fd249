package dev.triage.bench.sim;

import dev.triage.bench.plot.LatencyVsLoadChart;
import dev.triage.bench.stats.LoadPoint;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.WorkloadFile;
import dev.triage.features.Prompt;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.FeedbackAnswers;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.SharedData;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.config.EstimatorConfig;
import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.sizing.ChatEstimators;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * {@code scripts/simulate}: runs the simulator from the command line.
 *
 * <pre>
 * simulate clairvoyant-table9 --out DIR [--requests 2000] [--seeds 5]
 * simulate asr-toy
 * simulate run   [workload options] [--rho R | --rate L] [--policies P,...] [--tau S] [--seeds 5] [--out DIR]
 * simulate sweep --out DIR [workload options] [--rho R,...] [--policies P,...] [--tau S] [--seeds 5] [--title T]
 * simulate laps  --out DIR
 * simulate prequential [--estimator lexical] [--models M,... | --workload FILE | --feedback FILE] [--seed 42] [--rho 0.8] [--policies sjf,hrrn] [--tau S] [--seeds 5]
 * simulate ewsjf --out DIR [--requests 6000] [--rho 0.8] [--seeds 3] [--slots 4] [--batch-slowdown 0.05] [--ewsjf-* ...]
 * simulate scale-out [workload options] [--speeds 1,1,0.5,0.5] [--sidecars 1] [--routings R,...] [--rho 0.8] [--policies P,...] [--seeds 3] [--out DIR]
 * </pre>
 *
 * Workload options are {@link WorkloadOptions}'; policies are {@link PolicyVariant} names.
 */
public final class SimulateCommand {

    static final String USAGE = """
            usage: simulate clairvoyant-table9 --out DIR [--requests 2000] [--seeds 5]
                   simulate asr-toy
                   simulate run   [workload options] [--rho R | --rate PER_SECOND] [--policies P,...] [--tau SECONDS] [--seeds 5] [--out DIR]
                   simulate sweep --out DIR [workload options] [--rho R,...] [--policies P,...] [--tau SECONDS] [--seeds 5] [--title TEXT]
                   simulate laps  --out DIR        (tunes laps on part of the shared data, reports on the rest)
                   simulate prequential [--estimator classifier|lexical|ranker] [--models MODEL,... | --workload FILE | --feedback FILE]
                                  [--seed 42] [--rho 0.8] [--policies sjf,hrrn] [--tau SECONDS] [--seeds 5]   (learning against frozen, scheduled)
                   simulate ewsjf --out DIR [--requests 6000] [--rho 0.8] [--seeds 3] [--slots 4] [--batch-slowdown 0.05] [--data DIR]
                                  [--service-base 0.05 --service-per-prompt-token 0.0002 --service-per-token 0.02] [--ewsjf-* ...]
                   simulate scale-out [workload options] [--speeds 1,1,0.5,0.5] [--sidecars 1] [--routings ROUTING,...] [--rho 0.8]
                                  [--policies P,...] [--seeds 3] [--out DIR]   (--slots per backend; ρ of the pool; routings: round-robin,
                                  least-outstanding, least-expected-completion, power-of-two, shared-queue)
            workload options:
                   --arrivals poisson|burst|trace:FILE   --requests 2000   --slots 1
                   --sizes clairvoyant|normal:MEAN:SD|gamma:SHAPE:SCALE|CLASS@WEIGHT=DIST,...|workload:FILE|trace:FILE
                   --service-base 0.1 --service-per-prompt-token 0 --service-per-token 0.02
                                 (seconds = base + per-prompt-token x prompt tokens + per-token x tokens)
                   --batch-slowdown 0   (each further decoding job slows a step by this share)
                   --estimate exact|lognormal:SIGMA|classifier:SIGMA|ranker|lexical|classifier|baseline|prompt-ceiling
                                 (ranker to baseline: Triage's estimator of that name, shipped model, on --sizes workload:FILE's prompts;
                                 prompt-ceiling: the other models' mean answer to each prompt, from the shared data)
                   --prefill-rate 1000 --kv-spare-slots 0     (what resuming a paused job costs)
            policies: [oracle-]fcfs|sjf|hrrn|laps|ewsjf|ewsjf-estimate[-tau], oracle-srpt
                   --laps KEY=VALUE,...   (sets laps, see --help of triage)
                   --ewsjf-tune true --ewsjf-trial 600 --ewsjf-refine 300 --ewsjf-max-queues 32   (seconds)
            """;

    /** Answering models every shipped estimator's training left out: wordier, terser, and told to be concise. */
    static final List<String> PREQUENTIAL_MODELS = List.of("gpt4_1106_preview_verbose", "alpaca-7b", "gpt4_1106_preview_concise");
    static final ServiceTimeModel REPLAY_SPEED = new ServiceTimeModel(0.05, 0.02);
    static final ServiceTimeModel FLAG_DEFAULTS = new ServiceTimeModel(0.5, 0.02);

    static final List<Double> SWEEP_RHOS = List.of(0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9);

    private SimulateCommand() {}

    public static void main(String[] args) {
        try {
            System.out.print(run(Flags.parse(args)));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("simulate: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
    }

    static String run(Flags flags) throws IOException {
        List<String> words = flags.positional();
        if (words.size() != 1) {
            throw new IllegalArgumentException("expected one command, got " + words);
        }
        switch (words.get(0)) {
            case "clairvoyant-table9": {
                Path out = Path.of(flags.required("out", "a directory for summary.csv and table9.md"));
                ClairvoyantTable9 table = new ClairvoyantTable9(flags.integer("requests", 2000), flags.integer("seeds", 5));
                flags.finish();
                return table.run(out) + "\nwrote " + out.resolve("summary.csv") + ", " + out.resolve("table9.md") + "\n";
            }
            case "asr-toy":
                flags.finish();
                return AsrToyExample.report();
            case "run":
                return runOnce(flags);
            case "sweep":
                return sweep(flags);
            case "laps":
                return laps(flags);
            case "prequential":
                return prequential(flags);
            case "ewsjf":
                return ewsjf(flags);
            case "scale-out":
                return scaleOut(flags);
            default:
                throw new IllegalArgumentException("unknown command " + words.get(0));
        }
    }

    private static String runOnce(Flags flags) throws IOException {
        try (WorkloadOptions workload = WorkloadOptions.fromFlags(flags)) {
            double rho = flags.number("rho", Double.NaN);
            List<PolicyVariant> variants = variants(flags);
            List<Long> seeds = seeds(flags);
            Path out = flags.optional("out").map(Path::of).orElse(null);
            flags.finish();
            List<SummaryRow> rows = new Experiment(variants, workload.backend(), seeds, workload.at(rho)).run();
            StringBuilder text = new StringBuilder(workload.describe() + ", " + workload.load(rho) + ", " + seeds.size() + " seed(s)\n\n");
            text.append(SummaryTable.markdown(rows));
            if (out != null) {
                Files.createDirectories(out);
                SummaryCsv.write(out.resolve("summary.csv"), rows);
                text.append("\nwrote ").append(out.resolve("summary.csv")).append('\n');
            }
            return text.toString();
        }
    }

    /**
     * The proxy's learner replayed on AlpacaEval answers of models the shipped estimators were not
     * trained on, or on a workload file's prompts and answers ({@code --workload}) or a feedback log's
     * ({@code --feedback}, one stream per backend, in the log's order), in front of a
     * replay backend at its default speed, learning from the flags' defaults.
     */
    private static String prequential(Flags flags) throws IOException {
        String estimatorName = flags.string("estimator", "lexical");
        Optional<Path> workload = flags.optional("workload").map(Path::of);
        Optional<Path> feedback = flags.optional("feedback").map(Path::of);
        boolean modelsGiven = flags.optional("models").isPresent();
        List<String> models = flags.words("models", PREQUENTIAL_MODELS);
        long seed = flags.integer("seed", 42);
        double rho = flags.number("rho", 0.8);
        List<PolicyVariant> variants = learningVariants(flags);
        List<Long> seeds = seeds(flags);
        flags.finish();
        if (!EstimatorConfig.NAMES.contains(estimatorName)) {
            throw new IllegalArgumentException("--estimator: " + estimatorName + " (expected: one of " + EstimatorConfig.NAMES + ")");
        }
        if ((modelsGiven ? 1 : 0) + (workload.isPresent() ? 1 : 0) + (feedback.isPresent() ? 1 : 0) > 1) {
            throw new IllegalArgumentException("--models, --workload and --feedback: give one (the answering models' AlpacaEval"
                    + " answers, a workload's, or a feedback log's)");
        }
        StringBuilder text = new StringBuilder("estimator " + estimatorName + ", replay backend " + REPLAY_SPEED
                + ", prior " + FLAG_DEFAULTS + "\n");
        try (JobEstimator<Prompt> estimator = ChatEstimators.load(new EstimatorConfig(estimatorName, Optional.empty(), "baseline", false))) {
            prequentialStreams(workload, feedback, models, estimator, seed).forEach((name, stream) -> text.append(name).append(": ")
                    .append(PrequentialReplay.run(stream, REPLAY_SPEED, FLAG_DEFAULTS, seed).describe())
                    .append(String.format(Locale.ROOT, "%n%nscheduled at ρ = %.2f on a serial backend, %d seed(s):%n%n", rho, seeds.size()))
                    .append(LearningScheduling.markdown(LearningScheduling.run(stream, REPLAY_SPEED, FLAG_DEFAULTS, variants, rho, seeds)))
                    .append('\n'));
        }
        return text.toString();
    }

    /** The streams to replay, by name: the workload's, the feedback log's backends', or the AlpacaEval models'. */
    private static Map<String, List<PrequentialReplay.Answered>> prequentialStreams(Optional<Path> workload, Optional<Path> feedback,
            List<String> models, JobEstimator<Prompt> estimator, long seed) throws IOException {
        Map<String, List<PrequentialReplay.Answered>> streams = new LinkedHashMap<>();
        if (workload.isPresent()) {
            streams.put(workload.get().getFileName().toString(), PrequentialReplay.ofWorkload(WorkloadFile.read(workload.get()), estimator));
        } else if (feedback.isPresent()) {
            FeedbackAnswers.load(feedback.get()).stream()
                    .collect(Collectors.groupingBy(PromptAnswer::answeringModel, LinkedHashMap::new, Collectors.toList()))
                    .forEach((backend, answers) -> streams.put(backend, PrequentialReplay.inOrder(answers, estimator)));
        } else {
            List<PromptAnswer> answers = PromptResponseLoader.load(SharedData.requirePromptResponse(), PromptSource.ALPACA_EVAL);
            for (String model : models) {
                streams.put(model, PrequentialReplay.stream(answers, model, estimator, seed));
            }
        }
        return streams;
    }

    private static String sweep(Flags flags) throws IOException {
        Path out = Path.of(flags.required("out", "a directory for sweep.csv and latency-vs-load.png"));
        try (WorkloadOptions workload = WorkloadOptions.fromFlags(flags)) {
            List<Double> rhos = flags.numbers("rho", SWEEP_RHOS);
            List<PolicyVariant> variants = variants(flags);
            List<Long> seeds = seeds(flags);
            String title = flags.string("title", workload.describe());
            flags.finish();
            List<LoadPoint> points = LoadSweep.run(workload::at, variants, workload.backend(), rhos, seeds);
            Files.createDirectories(out);
            Path csv = out.resolve("sweep.csv");
            Path png = out.resolve("latency-vs-load.png");
            LoadSweep.writeCsv(csv, points);
            LatencyVsLoadChart.write(png, title, points, variants.stream().map(PolicyVariant::name).toList());
            return "wrote " + csv + ", " + png + "\n";
        }
    }

    private static String laps(Flags flags) throws IOException {
        Path out = Path.of(flags.required("out", "a directory for tuning.csv, report.csv and laps.md"));
        flags.finish();
        Path data = SharedData.locate().orElseThrow(() -> new IllegalArgumentException(
                "no shared data at ../shared/data (or $" + SharedData.ENVIRONMENT_VARIABLE + ")"));
        try (ClassifierEstimator classifier = ClassifierEstimator.loadDefault();
                RankerEstimator ranker = RankerEstimator.loadDefault()) {
            String markdown = LapsStudy.onSharedData(data, List.of(classifier, ranker)).run(out);
            return markdown + "\nwrote " + out.resolve("tuning.csv") + ", " + out.resolve("report.csv") + ", " + out.resolve("laps.md") + "\n";
        }
    }

    private static String ewsjf(Flags flags) throws IOException {
        Path out = Path.of(flags.required("out", "a directory for summary.csv, trials.csv and convergence.png"));
        Path data = flags.optional("data").map(Path::of).orElseGet(() -> SharedData.locate().orElseThrow(
                () -> new IllegalArgumentException("--data: missing and ../shared/data not found (expected: the shared data directory)")));
        int requests = flags.integer("requests", 6000);
        double rho = flags.number("rho", 0.8);
        List<Long> seeds = seeds(flags, 3);
        ServiceTimeModel speed = new ServiceTimeModel(flags.number("service-base", 0.05), flags.number("service-per-prompt-token", 0.0002),
                flags.number("service-per-token", 0.02));
        Map<String, SimulatedBackend> backends = new LinkedHashMap<>();
        backends.put("serial", new SimulatedBackend(1, speed.secondsPerToken(), 0));
        int slots = flags.integer("slots", 4);
        double slowdown = flags.number("batch-slowdown", 0.05);
        backends.put(String.format(Locale.ROOT, "%d slots, +%.0f%%/batched job", slots, slowdown * 100),
                new SimulatedBackend(slots, speed.secondsPerToken(), slowdown));
        EwsjfSettings ewsjf = ewsjfSettings(flags);
        flags.finish();
        EwsjfExperiment experiment = new EwsjfExperiment(EwsjfExperiment.traceScenarios(data, requests), backends, speed, rho, seeds, ewsjf);
        return String.format(Locale.ROOT, "%d requests per scenario, Poisson arrivals at ρ = %.2f, %d seed(s), %.0f ms + %.2f ms/prompt token + %.0f ms/token%n",
                requests, rho, seeds.size(), speed.baseSeconds() * 1e3, speed.secondsPerPromptToken() * 1e3, speed.secondsPerToken() * 1e3)
                + experiment.run(out) + "\nwrote " + out.resolve("summary.csv") + ", " + out.resolve("trials.csv") + ", "
                + out.resolve("convergence.png") + "\n";
    }

    /** Routings and policies on a pool of backends of the given relative speeds, loaded to ρ of their summed capacity. */
    private static String scaleOut(Flags flags) throws IOException {
        try (WorkloadOptions workload = WorkloadOptions.fromFlags(flags)) {
            List<Double> speeds = flags.numbers("speeds", List.of(1.0, 1.0, 0.5, 0.5));
            List<Routing> routings = flags.words("routings", Arrays.stream(Routing.values()).map(Routing::label).toList()).stream()
                    .map(Routing::parse).toList();
            int sidecars = flags.integer("sidecars", 1);
            double rho = flags.number("rho", 0.8);
            List<PolicyVariant> variants = variants(flags);
            List<Long> seeds = seeds(flags, 3);
            Path out = flags.optional("out").map(Path::of).orElse(null);
            flags.finish();
            // ρ of the pool: the workload is loaded as if one backend had the slots of all of them together.
            List<ScaleOutStudy.Row> rows = new ScaleOutStudy(routings, variants, workload.backend(), speeds, sidecars, seeds,
                    workload.at(rho * ScaleOutSimulation.capacity(speeds))).run();
            StringBuilder text = new StringBuilder(workload.describe() + " per backend, backend speeds " + speeds + ", ρ = " + rho
                    + " of the pool, " + sidecars + " sidecar(s), " + seeds.size() + " seed(s)\n\n").append(ScaleOutStudy.markdown(rows));
            if (out != null) {
                Files.createDirectories(out);
                ScaleOutStudy.writeCsv(out.resolve("scale-out.csv"), rows);
                text.append("\nwrote ").append(out.resolve("scale-out.csv")).append('\n');
            }
            return text.toString();
        }
    }

    private static List<PolicyVariant> variants(Flags flags) {
        Duration tau = tau(flags);
        List<String> defaults = tau.isZero() ? List.of("fcfs", "sjf", "hrrn", "oracle-sjf")
                : List.of("fcfs", "sjf", "sjf-tau", "hrrn", "hrrn-tau", "oracle-sjf");
        LapsSettings laps = LapsSettings.DEFAULTS.with(flags.string("laps", ""));
        EwsjfSettings ewsjf = ewsjfSettings(flags);
        return flags.words("policies", defaults).stream().map(spec -> PolicyVariant.parse(spec, tau, laps, ewsjf)).toList();
    }

    /** {@code --tau} in seconds, 0 (none) by default. */
    private static Duration tau(Flags flags) {
        double tauSeconds = flags.number("tau", 0);
        if (tauSeconds < 0) {
            throw new IllegalArgumentException("--tau: " + tauSeconds + " (expected: >= 0 seconds)");
        }
        return Duration.ofNanos(Math.round(tauSeconds * 1e9));
    }

    /** The policies a learner costs: by estimates, so neither an oracle nor one that pauses jobs. */
    private static List<PolicyVariant> learningVariants(Flags flags) {
        Duration tau = tau(flags);
        List<PolicyVariant> variants = flags.words("policies", List.of("sjf", "hrrn")).stream().map(spec -> PolicyVariant.parse(spec, tau)).toList();
        for (PolicyVariant variant : variants) {
            if (variant.oracle() || variant.policy() == Policy.LAPS || variant.policy() == Policy.EWSJF) {
                throw new IllegalArgumentException("--policies: " + variant.name() + " (expected: fcfs, sjf or hrrn, with or without -tau)");
            }
        }
        return variants;
    }

    /** EWSJF's settings from {@code --ewsjf-*}: the defaults, with the trial and refinement intervals in seconds. */
    static EwsjfSettings ewsjfSettings(Flags flags) {
        EwsjfSettings defaults = EwsjfSettings.defaults();
        boolean tune = Boolean.parseBoolean(flags.string("ewsjf-tune", "true"));
        Duration trial = seconds("--ewsjf-trial", flags.number("ewsjf-trial", defaults.trialInterval().toSeconds()));
        Duration refine = seconds("--ewsjf-refine", flags.number("ewsjf-refine", defaults.refineInterval().toSeconds()));
        int maxQueues = flags.integer("ewsjf-max-queues", defaults.maxQueues());
        return new EwsjfSettings(defaults.sizeFeature(), maxQueues, defaults.minQueueWidth(), defaults.bubbleWidth(), defaults.window(),
                defaults.minSamples(), refine, trial, defaults.minTrialCompletions(), tune, defaults.initialTheta(), defaults.reward(),
                defaults.seed());
    }

    private static Duration seconds(String flag, double seconds) {
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw new IllegalArgumentException(flag + ": " + seconds + " (expected: > 0 seconds)");
        }
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    private static List<Long> seeds(Flags flags) {
        return seeds(flags, 5);
    }

    private static List<Long> seeds(Flags flags, int byDefault) {
        return LongStream.range(0, flags.positiveInteger("seeds", byDefault)).boxed().toList();
    }
}
