package dev.triage.model.training;

import dev.triage.model.BaselineEstimator;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.cli.Flags;
import dev.triage.model.cli.Progress;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.ranker.RankerModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code scripts/evaluate --estimator ranker}: compares the ranker's training objectives as PARS
 * does — pairwise with and without the δ filter, pointwise, listwise — with the shipped classifier
 * and the prompt-length baseline, on the classifier's test split (pooled and per source) and across
 * sources, and writes the report.
 *
 * <pre>
 * scripts/evaluate --estimator ranker [--data ../shared/data] [--model model/src/main/resources/models/ranker.onnx]
 *     [--classifier-model model/src/main/resources/models/classifier.onnx] [--out docs/ranker-evaluation.md]
 *     [--seeds 3] [--compare-objectives true] [--embedding-cache model/target/ranker-embeddings]
 * </pre>
 *
 * <p>{@code --compare-encoders true} compares the sentence encoders instead ({@link EncoderComparison}).
 *
 * <p>{@code --compare-objectives false} skips PARS's comparison of objectives (the heads trained
 * per objective, seed and source: the bulk of the time) and reports the shipped model alone.
 *
 * <p>Every comparison head is trained with the evaluated model's settings, on the training split,
 * calibrated on the validation split; the test split is only scored. Heads on the whole training
 * split are trained with {@code --seeds} seeds and reported as the mean with the range, since one
 * seed's τ_b moves by about ±0.01; heads for the cross-dataset matrix with one.
 */
final class RankerEvaluateCommand {

    static final Path DEFAULT_REPORT = Path.of("docs/ranker-evaluation.md");

    /** "all": the pooled test split; otherwise a source's id. */
    static final String ALL = "all";

    private RankerEvaluateCommand() {}

    static void run(Flags flags) throws IOException {
        if (flags.string("compare-encoders", "false").equals("true")) {
            EncoderComparison.run(flags);
            return;
        }
        Path modelFile = flags.path("model", RankerTrainCommand.DEFAULT_OUT.toString());
        Path classifierFile = flags.path("classifier-model", TrainCommand.DEFAULT_OUT.toString());
        Path out = flags.path("out", DEFAULT_REPORT.toString());
        Path cache = flags.path("embedding-cache", EmbeddingCache.DEFAULT_DIRECTORY.toString());
        int seeds = flags.positiveInteger("seeds", 3);
        boolean compareObjectives = !flags.string("compare-objectives", "true").equals("false");
        Path data = TrainingFlags.promptResponse(flags);
        flags.finish();
        PromptCorpus corpus = TrainCommand.loadCorpus(data);
        String report;
        try (RankerModel shipped = RankerModel.load(modelFile);
                ClassifierEstimator classifier = ClassifierEstimator.load(classifierFile)) {
            EncoderGraph encoder = RankerEstimator.encoderGraph(shipped.metadata(),
                    file -> ModelFiles.readFile(RankerEstimator.NAME, modelFile.toString(), modelFile.resolveSibling(file)));
            PromptEmbeddings embeddings = PromptEmbeddings.of(corpus, encoder, shipped.metadata().maxTokens(), cache);
            String latency;
            try (RankerEstimator estimator = RankerEstimator.load(modelFile)) {
                latency = Latency.measure(estimator, corpus.prompts(PromptSplit.TEST).stream().map(LabeledPrompt::request).toList());
            }
            report = evaluate(corpus, embeddings, shipped, modelFile, classifier, compareObjectives ? seeds : 0, latency, cache);
        }
        System.out.println(report);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
    }

    static String evaluate(PromptCorpus corpus, PromptEmbeddings embeddings, RankerModel shipped, Path modelFile,
            ClassifierEstimator classifier, int seeds, String latency, Path cache) {
        RankerSettings settings = settingsOf(shipped.metadata());
        List<PromptSource> sources = EvaluateCommand.sourcesWithTestPrompts(corpus);
        List<String> scopes = new ArrayList<>();
        scopes.add(ALL);
        sources.forEach(source -> scopes.add(source.id()));

        List<Job> jobs = new ArrayList<>();
        for (Variant variant : seeds == 0 ? new Variant[0] : Variant.values()) {
            for (int seed = 0; seed < seeds; seed++) {
                jobs.add(new Job(variant, settings.seed() + seed, null));
            }
            for (PromptSource source : sources) {
                jobs.add(new Job(variant, settings.seed(), source));
            }
        }
        Progress progress = Progress.start("training and scoring ranker heads, " + Variant.values().length
                + " objectives", jobs.size(), null);
        // Each head trains on one core; the jobs are independent and seeded, so the order they run in changes nothing.
        Map<Job, Map<String, Figures>> results = jobs.parallelStream()
                .collect(Collectors.toMap(job -> job, job -> {
                    Map<String, Figures> figures = job.run(corpus, embeddings, settings, sources);
                    progress.step();
                    return figures;
                }));
        progress.done();

        RankerEvaluationReport report = new RankerEvaluationReport(corpus, shipped.metadata(), modelFile, seeds,
                RankerTrainCommand.figures(shipped, corpus.prompts(PromptSplit.VALIDATION), embeddings));
        Map<String, Figures> shippedFigures = new LinkedHashMap<>();
        Map<String, Figures> classifierFigures = new LinkedHashMap<>();
        Map<String, Figures> baselineFigures = new LinkedHashMap<>();
        BaselineEstimator baseline = new BaselineEstimator();
        for (String scope : scopes) {
            List<LabeledPrompt> test = testPrompts(corpus, scope);
            shippedFigures.put(scope, RankerTrainCommand.figures(shipped, test, embeddings));
            classifierFigures.put(scope, Evaluation.evaluate(classifier, test));
            baselineFigures.put(scope, Evaluation.evaluate(baseline, test));
        }
        report.shippedModel(shippedFigures);
        if (seeds > 0) {
            compareObjectives(corpus, classifier, scopes, sources, jobs, results, classifierFigures, baselineFigures, report);
        }

        HeldOutReport heldOut = new HeldOutReport(corpus, "ranker");
        Function<List<LabeledPrompt>, List<Estimate>> shippedEstimates = prompts -> embeddings.estimates(shipped, prompts);
        heldOut.testSplit(shippedEstimates);
        RankerMetadata.TunedEncoder tuned = shipped.metadata().tunedEncoder();
        heldOut.crossSource((split, validation) -> {
            List<LabeledPrompt> train = RankerTrainer.trainingPrompts(corpus, split, settings);
            PromptEmbeddings encoded = tuned == null ? embeddings : tunedWithout(corpus, train, validation, settings, tuned, cache);
            TrainedRanker trained = RankerTrainer.train(train, encoded.of(train), validation, encoded.of(validation), settings);
            return prompts -> {
                try (RankerModel model = trained.model("cross-source")) {
                    return encoded.estimates(model, prompts);
                }
            };
        }, Duration.ofMinutes(tuned == null ? 8 : 8 + sources.size() * 12L * tuned.steps() / 300));
        heldOut.ties(shippedEstimates);
        heldOut.latency(latency);
        String prior = LengthPriorSelection.run(corpus, embeddings, settings)
                .markdown(new LengthPriorSelection.Prior(settings.lengthPrior(), settings.lengthPriorThreshold()));
        return report.markdown() + "\n" + prior + trainingChoices(corpus, embeddings, settings).markdown() + heldOut.markdown();
    }

    /** PARS's comparison: each objective on all sources over the seeds, with and without δ, and trained on one source. */
    private static void compareObjectives(PromptCorpus corpus, ClassifierEstimator classifier, List<String> scopes,
            List<PromptSource> sources, List<Job> jobs, Map<Job, Map<String, Figures>> results,
            Map<String, Figures> classifierFigures, Map<String, Figures> baselineFigures, RankerEvaluationReport report) {
        Map<Variant, List<Map<String, Figures>>> bySeed = new LinkedHashMap<>();
        for (Variant variant : Variant.values()) {
            bySeed.put(variant, jobs.stream().filter(j -> j.variant == variant && j.trainSource == null).map(results::get).toList());
        }
        report.objectives(scopes, bySeed, classifierFigures, baselineFigures);
        report.deltaFilter(scopes, bySeed.get(Variant.PAIRWISE_UNFILTERED), bySeed.get(Variant.PAIRWISE));

        Map<String, Map<PromptSource, Figures>> classifierCross = EvaluateCommand.crossDataset(corpus, sources, classifier);
        Map<Variant, Map<PromptSource, Map<String, Figures>>> cross = new LinkedHashMap<>();
        for (Variant variant : Variant.values()) {
            Map<PromptSource, Map<String, Figures>> rows = new LinkedHashMap<>();
            for (PromptSource source : sources) {
                rows.put(source, results.get(jobs.stream().filter(j -> j.variant == variant && j.trainSource == source)
                        .findFirst().orElseThrow()));
            }
            cross.put(variant, rows);
        }
        report.crossDataset(sources, cross, classifierCross);
    }

    /**
     * The head alone, its models drawn in proportion to their answers, with the instruction sets' prompts or without as
     * the evaluated model was trained, against trees stacked on it (the evaluated model's own stacking where it has
     * one), against the answering styles balanced, and against the other choice of instruction sets.
     */
    private static TrainingChoices trainingChoices(PromptCorpus corpus, PromptEmbeddings embeddings, RankerSettings settings) {
        RankerSettings plain = settings.withStacking(TreeStacking.NONE).withBalancedStyles(false);
        TreeStacking stacking = settings.stacking().stacked() ? settings.stacking() : TreeStacking.COMPARED;
        boolean instructionSets = plain.instructionSets();
        return TrainingChoices.run(corpus, embeddings, new TrainingChoices.Choice("the head alone, models in proportion to their "
                + "answers" + (instructionSets ? ", the instruction sets' prompts added" : ""), plain), List.of(
                new TrainingChoices.Choice(String.format(Locale.ROOT, "%d trees of depth %d stacked over %d folds (`--stack-folds`)",
                        stacking.boosting().trees(), stacking.boosting().maxDepth(), stacking.folds()), plain.withStacking(stacking)),
                new TrainingChoices.Choice("the answering styles balanced (`--balance-styles true`)", plain.withBalancedStyles(true)),
                new TrainingChoices.Choice((instructionSets ? "without" : "with") + " the instruction sets' prompts (`--instruction-sets "
                        + !instructionSets + "`)", plain.withInstructionSets(!instructionSets))));
    }

    /**
     * The corpus embedded by the encoder tuned as the shipped head's was, but on {@code train} alone: a cross-source
     * cell's encoder must not have seen the held-out source either.
     */
    private static PromptEmbeddings tunedWithout(PromptCorpus corpus, List<LabeledPrompt> train, List<LabeledPrompt> validation,
            RankerSettings settings, RankerMetadata.TunedEncoder shipped, Path cache) {
        try {
            EncoderTuning tuning = new EncoderTuning(shipped.steps(), shipped.pairsPerStep(), shipped.learningRate(),
                    shipped.headLearningRate());
            EncoderGraph graph = EncoderTuner.tune(EncoderGraph.of(settings.encoder()), train, validation, settings, tuning,
                    shipped.file()).graph();
            return PromptEmbeddings.of(corpus, graph, settings.maxTokens(), cache);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The settings the evaluated head was trained with. */
    static RankerSettings settingsOf(RankerMetadata metadata) {
        RankerMetadata.Training training = metadata.training();
        return new RankerSettings(RankingObjective.of(metadata.objective()), metadata.minLengthDifference(), metadata.margin(),
                training.hiddenUnits(), training.learningRate(), training.steps(), training.batchSize(), training.listSize(),
                training.weightDecay(), training.seed(), metadata.encoderSpec(), metadata.maxTokens(), training.lengthPrior(),
                training.lengthPriorThreshold(), training.stylesBalanced(), stackingOf(training.stacking()),
                training.instructionSetPrompts() > 0);
    }

    private static TreeStacking stackingOf(RankerMetadata.Stacking stacking) {
        return stacking == null ? TreeStacking.NONE : new TreeStacking(stacking.folds(),
                new TrainingSettings(stacking.trees(), stacking.maxDepth(), stacking.learningRate(), stacking.seed()));
    }

    private static List<LabeledPrompt> testPrompts(PromptCorpus corpus, String scope) {
        return scope.equals(ALL) ? corpus.prompts(PromptSplit.TEST)
                : corpus.prompts(PromptSplit.TEST, HeldOutReport.sourceOf(scope));
    }


    /** The objectives PARS compares, each a way to train the same head on the same embeddings. */
    enum Variant {
        LISTWISE("listwise (ListMLE)"),
        POINTWISE("pointwise (L1, log length)"),
        PAIRWISE_UNFILTERED("pairwise, no δ filter"),
        PAIRWISE("pairwise, δ filter");

        final String label;

        Variant(String label) {
            this.label = label;
        }

        /**
         * The evaluated model's settings with this objective; the δ filter uses the evaluated
         * model's δ, or PARS's 0.2 when that model was trained without one.
         */
        RankerSettings settings(RankerSettings evaluated) {
            double delta = evaluated.minLengthDifference() > 0 ? evaluated.minLengthDifference()
                    : RankerSettings.DEFAULTS.minLengthDifference();
            return switch (this) {
                case LISTWISE -> evaluated.with(RankingObjective.LISTWISE, 0);
                case POINTWISE -> evaluated.with(RankingObjective.POINTWISE, 0);
                case PAIRWISE_UNFILTERED -> evaluated.with(RankingObjective.PAIRWISE, 0);
                case PAIRWISE -> evaluated.with(RankingObjective.PAIRWISE, delta);
            };
        }
    }

    /** One head to train: on every source's training split ({@code trainSource} null) or on one source's. */
    private record Job(Variant variant, long seed, PromptSource trainSource) {

        /** Trains, calibrates, and scores the test split of every scope the job is read for. */
        Map<String, Figures> run(PromptCorpus corpus, PromptEmbeddings embeddings, RankerSettings evaluated,
                List<PromptSource> sources) {
            RankerSettings settings = variant.settings(evaluated).withSeed(seed);
            List<LabeledPrompt> train = RankerTrainer.trainingPrompts(corpus, trainSource == null ? corpus.prompts(PromptSplit.TRAIN)
                    : corpus.prompts(PromptSplit.TRAIN, trainSource), settings);
            List<LabeledPrompt> validation = trainSource == null || corpus.prompts(PromptSplit.VALIDATION, trainSource).isEmpty()
                    ? corpus.prompts(PromptSplit.VALIDATION) : corpus.prompts(PromptSplit.VALIDATION, trainSource);
            TrainedRanker trained = RankerTrainer.train(train, embeddings.of(train), validation, embeddings.of(validation),
                    settings);
            Map<String, Figures> figures = new LinkedHashMap<>();
            try (RankerModel model = trained.model(variant.label + ", seed " + seed)) {
                if (trainSource == null) {
                    figures.put(ALL, RankerTrainCommand.figures(model, corpus.prompts(PromptSplit.TEST), embeddings));
                }
                for (PromptSource source : sources) {
                    figures.put(source.id(), RankerTrainCommand.figures(model, corpus.prompts(PromptSplit.TEST, source), embeddings));
                }
            }
            return figures;
        }
    }
}
