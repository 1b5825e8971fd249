package dev.triage.model.training;

import static dev.triage.model.training.ReportCells.decimal;
import static dev.triage.model.training.ReportCells.percent;
import static dev.triage.model.training.ReportCells.tauAndAccuracy;

import dev.triage.model.BaselineEstimator;
import dev.triage.model.cli.Flags;
import dev.triage.model.cli.Progress;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerModel;
import dev.triage.model.ranker.SentenceEncoder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code scripts/evaluate --estimator ranker --compare-encoders true}: the ranker's head trained the
 * same way (the shipped head's settings: objective, steps, seeds, features) on each
 * {@link EncoderSpec}'s embeddings, and measured where a choice may be made — the validation split,
 * and each source held out (trained on the others' training split, calibrated on their validation
 * split, scored on the held-out source's validation split) — beside the encoder's cost: encode and
 * score per prompt, one at a time, on the same prompts for every encoder, and the jar it adds.
 * The test split is not read.
 *
 * <pre>
 * scripts/evaluate --estimator ranker --compare-encoders true [--data ../shared/data]
 *     [--model model/src/main/resources/models/ranker.onnx] [--out docs/ranker-encoders.md] [--seeds 3]
 *     [--latency-prompts 1000] [--embedding-cache model/target/ranker-embeddings]
 * </pre>
 */
final class EncoderComparison {

    static final Path DEFAULT_REPORT = Path.of("docs/ranker-encoders.md");

    /** The budget of an estimator on the request path: p50 per request on two cores. */
    private static final double BUDGET_P50_MS = 10;
    /** And its throughput. */
    private static final double BUDGET_PER_SECOND = 100;

    private EncoderComparison() {}

    static void run(Flags flags) throws IOException {
        Path modelFile = flags.path("model", RankerTrainCommand.DEFAULT_OUT.toString());
        Path out = flags.path("out", DEFAULT_REPORT.toString());
        Path cache = flags.path("embedding-cache", EmbeddingCache.DEFAULT_DIRECTORY.toString());
        int seeds = flags.positiveInteger("seeds", 3);
        int latencyPrompts = flags.positiveInteger("latency-prompts", 1000);
        Path data = TrainingFlags.promptResponse(flags);
        flags.finish();
        PromptCorpus corpus = TrainCommand.loadCorpus(data);
        RankerSettings shipped;
        try (RankerModel model = RankerModel.load(modelFile)) {
            shipped = RankerEvaluateCommand.settingsOf(model.metadata());
        }
        String report = compare(corpus, shipped, modelFile, cache, seeds, latencyPrompts);
        System.out.println(report);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
    }

    private static String compare(PromptCorpus corpus, RankerSettings shipped, Path modelFile, Path cache, int seeds,
            int latencyPrompts) throws IOException {
        List<PromptSource> sources = EvaluateCommand.sourcesWithTestPrompts(corpus);
        Map<EncoderSpec, PromptEmbeddings> embeddings = new LinkedHashMap<>();
        for (EncoderSpec spec : EncoderSpec.values()) {
            embeddings.put(spec, PromptEmbeddings.of(corpus, EncoderGraph.of(spec), shipped.maxTokens(), cache));
        }
        List<Job> jobs = new ArrayList<>();
        for (EncoderSpec spec : EncoderSpec.values()) {
            for (int seed = 0; seed < seeds; seed++) {
                jobs.add(new Job(spec, shipped.seed() + seed, null));
            }
            for (PromptSource source : sources) {
                jobs.add(new Job(spec, shipped.seed(), source));
            }
        }
        Progress progress = Progress.start("training ranker heads per encoder", jobs.size(), null);
        // Each head trains on one core; the jobs are independent and seeded, so the order they run in changes nothing.
        Map<Job, Outcome> outcomes = jobs.parallelStream().collect(Collectors.toMap(job -> job, job -> {
            Outcome outcome = job.run(corpus, embeddings.get(job.encoder), shipped);
            progress.step();
            return outcome;
        }));
        progress.done();
        Map<Job, Figures> results = new LinkedHashMap<>();
        outcomes.forEach((job, outcome) -> results.put(job, outcome.figures));

        // Timed one encoder after another, after every head has trained, so that nothing else of this command runs beside.
        List<LabeledPrompt> validation = corpus.prompts(PromptSplit.VALIDATION);
        List<LabeledPrompt> timed = validation.subList(0, Math.min(latencyPrompts, validation.size()));
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        Map<EncoderSpec, Latency> latencies = new LinkedHashMap<>();
        for (EncoderSpec spec : EncoderSpec.values()) {
            try (RankerEstimator estimator = outcomes.get(new Job(spec, shipped.seed(), null)).trained.estimator(spec.id())) {
                latencies.put(spec, Latency.time(estimator, timed.stream().map(LabeledPrompt::request).toList()));
            }
        }
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return markdown(corpus, shipped, modelFile, seeds, sources, results, latencies, timed.size(), loadBefore, loadAfter);
    }

    private static String markdown(PromptCorpus corpus, RankerSettings shipped, Path modelFile, int seeds,
            List<PromptSource> sources, Map<Job, Figures> results, Map<EncoderSpec, Latency> latencies, int timedPrompts,
            double loadBefore, double loadAfter) {
        StringBuilder text = new StringBuilder();
        text.append("# Ranker: which sentence encoder\n\n")
                .append("Written by `scripts/evaluate --estimator ranker --compare-encoders true` with the settings of `")
                .append(modelFile).append("`. Do not edit by hand: run the command again.\n\n")
                .append("Each encoder's head is trained the same way: ").append(shipped.objective().id()).append(", δ = ")
                .append(shipped.minLengthDifference()).append(", ").append(shipped.hiddenUnits()).append(" hidden units, ")
                .append(String.format(Locale.ROOT, "%,d", shipped.steps())).append(" Adam steps at ").append(shipped.learningRate())
                .append(", the same request features beside the embedding, length prior ").append(shipped.lengthPrior())
                .append(", prompts cut at ").append(shipped.maxTokens()).append(" tokens (head and tail). Only the encoder ")
                .append("changes. Choices are made on the validation split; the test split is not read here.\n\n")
                .append("- **Validation**: trained on the training split, calibrated and scored on the validation split (")
                .append(String.format(Locale.ROOT, "%,d", corpus.prompts(PromptSplit.VALIDATION).size())).append(" prompts); ")
                .append(seeds).append(seeds == 1 ? " seed" : " seeds, mean with the lowest and highest in brackets")
                .append(".\n")
                .append("- **Leave one source out**: trained on the other sources' training split (calibrated on their ")
                .append("validation split), scored on the held-out source's validation split; seed ").append(shipped.seed())
                .append(". Cells: Kendall's τ_b · ranking accuracy (\"n/a\" where that split has no short×long pair: τ_b is ")
                .append("read for every source). *Worst* is the lowest held-out τ_b.\n")
                .append("- **Latency**: the head trained on the whole training split with the encoder in front, as ")
                .append("`RankerEstimator` serves it, one request at a time on one thread, over the same ")
                .append(String.format(Locale.ROOT, "%,d", timedPrompts)).append(" validation prompts for every encoder, in one ")
                .append("run, after 200 warm-up requests; ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores, load average ").append(String.format(Locale.ROOT, "%.2f before and %.2f after", loadBefore,
                        loadAfter)).append(". Requests/s is one thread's, one after another.\n")
                .append("- **Jar**: the size of the artifact that ships the encoder's model and tokenizer.\n\n");

        BaselineEstimator baseline = new BaselineEstimator();
        text.append("| encoder | pooling, prefix | validation: ranking accuracy | validation: τ_b |");
        sources.forEach(source -> text.append(" without ").append(source.id()).append(" |"));
        text.append(" worst held-out τ_b | p50 | p99 | requests/s | jar |\n|---|---|---|---|")
                .append("---|".repeat(sources.size() + 5)).append('\n');
        for (EncoderSpec spec : EncoderSpec.values()) {
            List<Figures> bySeed = seeds(results, spec);
            text.append("| ").append(spec.id()).append(spec == EncoderSpec.DEFAULT ? " (shipped)" : "").append(" | ")
                    .append(spec.pooling().name().toLowerCase(Locale.ROOT))
                    .append(spec.prefix().isEmpty() ? "" : ", \"" + spec.prefix() + "\"").append(" | ")
                    .append(spread(bySeed.stream().map(Figures::rankingAccuracy).toList(), true)).append(" | ")
                    .append(spread(bySeed.stream().map(Figures::kendallTauB).toList(), false)).append(" |");
            Double worst = null;
            for (PromptSource source : sources) {
                Figures heldOut = results.get(new Job(spec, shipped.seed(), source));
                Double tau = heldOut.kendallTauB();
                worst = tau == null ? worst : worst == null ? tau : Math.min(worst, tau);
                text.append(' ').append(tauAndAccuracy(heldOut)).append(" |");
            }
            Latency latency = latencies.get(spec);
            text.append(' ').append(decimal(worst)).append(" | ").append(Latency.duration(latency.p50Nanos()))
                    .append(" | ").append(Latency.duration(latency.p99Nanos())).append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f", latency.perSecond())).append(" | ")
                    .append(jarSize(spec)).append(" |\n");
        }
        Figures length = Evaluation.evaluate(baseline, corpus.prompts(PromptSplit.VALIDATION));
        text.append("| the prompt's length | | ").append(percent(length.rankingAccuracy())).append(" | ")
                .append(decimal(length.kendallTauB())).append(" |");
        for (PromptSource source : sources) {
            text.append(' ').append(tauAndAccuracy(Evaluation.evaluate(baseline, corpus.prompts(PromptSplit.VALIDATION, source)))).append(" |");
        }
        text.append(" | | | | |\n\n")
                .append(String.format(Locale.ROOT, "Budget on the request path: p50 ≤ %.0f ms per request and ≥ %.0f prompts/s "
                        + "on two cores.%n%n", BUDGET_P50_MS, BUDGET_PER_SECOND));
        decision(text, shipped, sources, results, latencies);
        return text.toString();
    }

    /**
     * Against the shipped encoder, each other one: better on validation only when its mean ranking
     * accuracy and τ_b are both above the shipped encoder's highest seed; better across sources when
     * its worst held-out τ_b is higher and it is higher on most held-out sources; and within the budget.
     * It would replace the shipped encoder only when all three hold.
     */
    private static void decision(StringBuilder text, RankerSettings shipped, List<PromptSource> sources, Map<Job, Figures> results,
            Map<EncoderSpec, Latency> latencies) {
        text.append("## Decision\n\n")
                .append("Another encoder replaces ").append(EncoderSpec.DEFAULT.id()).append(" only if it is better on the ")
                .append("validation split beyond the seeds' spread (mean ranking accuracy and τ_b both above ")
                .append(EncoderSpec.DEFAULT.id()).append("'s best seed), better across sources (a higher worst held-out τ_b, ")
                .append("and higher on most held-out sources), and within the budget.\n\n");
        List<Figures> shippedSeeds = seeds(results, EncoderSpec.DEFAULT);
        double bestAccuracy = shippedSeeds.stream().mapToDouble(Figures::rankingAccuracy).max().orElseThrow();
        double bestTau = shippedSeeds.stream().mapToDouble(Figures::kendallTauB).max().orElseThrow();
        for (EncoderSpec spec : EncoderSpec.values()) {
            if (spec == EncoderSpec.DEFAULT) {
                continue;
            }
            List<Figures> candidate = seeds(results, spec);
            double accuracy = candidate.stream().mapToDouble(Figures::rankingAccuracy).average().orElseThrow();
            double tau = candidate.stream().mapToDouble(Figures::kendallTauB).average().orElseThrow();
            boolean validation = accuracy > bestAccuracy && tau > bestTau;
            int higher = 0;
            double worst = Double.POSITIVE_INFINITY;
            double shippedWorst = Double.POSITIVE_INFINITY;
            for (PromptSource source : sources) {
                Double mine = results.get(new Job(spec, shipped.seed(), source)).kendallTauB();
                Double theirs = results.get(new Job(EncoderSpec.DEFAULT, shipped.seed(), source)).kendallTauB();
                if (mine != null && theirs != null) {
                    higher += mine > theirs ? 1 : 0;
                    worst = Math.min(worst, mine);
                    shippedWorst = Math.min(shippedWorst, theirs);
                }
            }
            boolean across = worst > shippedWorst && 2 * higher > sources.size();
            Latency latency = latencies.get(spec);
            boolean budget = latency.p50Nanos() <= BUDGET_P50_MS * 1e6 && latency.perSecond() >= BUDGET_PER_SECOND;
            text.append(String.format(Locale.ROOT, "- **%s**: validation %s (ranking accuracy %s, τ_b %s against the best seed's "
                    + "%s and %s); across sources %s (worst held-out τ_b %s against %s, higher on %d of %d); budget %s (p50 %s, "
                    + "%,.0f requests/s, %.1f× and %.2f× %s's). %s%n", spec.id(), validation ? "better" : "not better",
                    percent(accuracy), decimal(tau), percent(bestAccuracy),
                    decimal(bestTau), across ? "better" : "not better", decimal(worst),
                    decimal(shippedWorst), higher, sources.size(), budget ? "met" : "NOT met",
                    Latency.duration(latency.p50Nanos()), latency.perSecond(),
                    (double) latency.p50Nanos() / latencies.get(EncoderSpec.DEFAULT).p50Nanos(),
                    latency.perSecond() / latencies.get(EncoderSpec.DEFAULT).perSecond(), EncoderSpec.DEFAULT.id(),
                    validation && across && budget ? "It would replace " + EncoderSpec.DEFAULT.id() + "."
                            : EncoderSpec.DEFAULT.id() + " stays."));
        }
        text.append('\n');
    }

    private static List<Figures> seeds(Map<Job, Figures> results, EncoderSpec spec) {
        return results.entrySet().stream().filter(e -> e.getKey().encoder == spec && e.getKey().heldOut == null)
                .map(Map.Entry::getValue).toList();
    }

    /** The mean of a figure over seeds, with the range when there are several; as a percentage or a decimal. */
    private static String spread(List<Double> values, boolean percent) {
        SeedSpread spread = SeedSpread.of(values);
        return spread == null ? "n/a" : spread.format(percent ? ReportCells::percent : ReportCells::decimal);
    }

    /** The size of the jar the encoder's model is read from, or "?" when it is not read from a jar. */
    private static String jarSize(EncoderSpec spec) {
        URL url = SentenceEncoder.class.getResource(spec.modelResource());
        try {
            if (url != null && url.openConnection() instanceof JarURLConnection jar) {
                Path file = Path.of(jar.getJarFileURL().toURI());
                return String.format(Locale.ROOT, "%.1f MB", Files.size(file) / 1e6);
            }
        } catch (IOException | URISyntaxException e) {
            return "?";
        }
        return "?";
    }

    /** A head's figures, and the head, whose encoder is then timed with it. */
    private record Outcome(Figures figures, TrainedRanker trained) {}

    /** One head to train: on every source's training split ({@code heldOut} null) or without one source. */
    private record Job(EncoderSpec encoder, long seed, PromptSource heldOut) {

        /** Trains and calibrates the head, and scores the validation split it is read for. */
        Outcome run(PromptCorpus corpus, PromptEmbeddings embeddings, RankerSettings shipped) {
            RankerSettings settings = shipped.withEncoder(encoder).withSeed(seed);
            List<LabeledPrompt> train = RankerTrainer.trainingPrompts(corpus, without(corpus.prompts(PromptSplit.TRAIN)), settings);
            List<LabeledPrompt> validation = without(corpus.prompts(PromptSplit.VALIDATION));
            List<LabeledPrompt> scored = heldOut == null ? validation : corpus.prompts(PromptSplit.VALIDATION, heldOut);
            TrainedRanker trained = RankerTrainer.train(train, embeddings.of(train), validation, embeddings.of(validation), settings);
            try (RankerModel model = trained.model(encoder.id() + ", seed " + seed)) {
                return new Outcome(RankerTrainCommand.figures(model, scored, embeddings), trained);
            }
        }

        private List<LabeledPrompt> without(List<LabeledPrompt> prompts) {
            return heldOut == null ? prompts : prompts.stream().filter(p -> p.source() != heldOut).toList();
        }
    }
}
