package dev.triage.model.training;

import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerModel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code scripts/train --estimator ranker}: embeds the corpus with the sentence encoder (cached),
 * trains the ranking head on the training split (and the trees stacked on it), fits its calibration on the validation split, and
 * writes the head's ONNX file and metadata, figures on the validation and test splits included.
 *
 * <pre>
 * scripts/train --estimator ranker [--data ../shared/data] [--out model/src/main/resources/models/ranker.onnx]
 *     [--objective pairwise|pointwise|listwise] [--min-length-difference 0.2] [--margin 1.0] [--hidden-units 128]
 *     [--learning-rate 0.0003] [--steps 3000] [--batch-size 256] [--list-size 32] [--weight-decay 0] [--seed 42]
 *     [--encoder minilm|bge-small|e5-small] [--max-tokens 256] [--length-prior W] [--length-prior-threshold C]
 *     [--balance-styles false] [--stack-folds 0] [--stack-trees 200] [--stack-depth 4] [--stack-learning-rate 0.05] [--instruction-sets true]
 *     [--embedding-cache model/target/ranker-embeddings]
 *     [--tune-encoder false] [--tune-steps 600] [--tune-pairs 16] [--tune-learning-rate 3e-5] [--tune-head-learning-rate 1e-3]
 * </pre>
 *
 * <p>With {@code --tune-encoder true} the encoder's layers are first tuned for answer length ({@link EncoderTuner}) and
 * written beside the head ({@code ranker-encoder.onnx} beside {@code ranker.onnx}); the head is then trained on the
 * tuned graph's embeddings.
 */
final class RankerTrainCommand {

    /** Where the shipped head lives, relative to the repository root. */
    static final Path DEFAULT_OUT = Path.of("model/src/main/resources" + RankerEstimator.DEFAULT_MODEL_RESOURCE);

    private RankerTrainCommand() {}

    static void run(Flags flags) throws IOException {
        RankerSettings defaults = RankerSettings.DEFAULTS;
        RankerSettings settings = new RankerSettings(
                RankingObjective.of(flags.string("objective", defaults.objective().id())),
                flags.number("min-length-difference", defaults.minLengthDifference()),
                flags.number("margin", defaults.margin()),
                flags.integer("hidden-units", defaults.hiddenUnits()),
                flags.number("learning-rate", defaults.learningRate()),
                flags.integer("steps", defaults.steps()),
                flags.integer("batch-size", defaults.batchSize()),
                flags.integer("list-size", defaults.listSize()),
                flags.number("weight-decay", defaults.weightDecay()),
                flags.integer("seed", (int) defaults.seed()),
                EncoderSpec.of(flags.string("encoder", defaults.encoder().id())),
                flags.integer("max-tokens", defaults.maxTokens()),
                flags.number("length-prior", defaults.lengthPrior()),
                flags.number("length-prior-threshold", defaults.lengthPriorThreshold()),
                flags.string("balance-styles", String.valueOf(defaults.balanceStyles())).equals("true"),
                stacking(flags, defaults.stacking()),
                flags.string("instruction-sets", String.valueOf(defaults.instructionSets())).equals("true"));
        EncoderTuning defaultTuning = EncoderTuning.DEFAULTS;
        EncoderTuning tuning = new EncoderTuning(
                flags.string("tune-encoder", "false").equals("true") ? flags.integer("tune-steps", defaultTuning.steps()) : 0,
                flags.integer("tune-pairs", defaultTuning.pairs()),
                flags.number("tune-learning-rate", defaultTuning.learningRate()),
                flags.number("tune-head-learning-rate", defaultTuning.headLearningRate()));
        Path out = flags.path("out", DEFAULT_OUT.toString());
        Path cache = flags.path("embedding-cache", EmbeddingCache.DEFAULT_DIRECTORY.toString());
        Path data = TrainingFlags.promptResponse(flags);
        Optional<Path> feedback = TrainingFlags.feedback(flags);
        flags.finish();
        PromptCorpus corpus = TrainCommand.loadCorpus(data, feedback);
        List<LabeledPrompt> train = RankerTrainer.trainingPrompts(corpus, corpus.prompts(PromptSplit.TRAIN), settings);
        List<LabeledPrompt> validation = corpus.prompts(PromptSplit.VALIDATION);
        EncoderGraph encoder = EncoderGraph.of(settings.encoder());
        EncoderTuner.Result tuned = null;
        if (tuning.tunes()) {
            tuned = EncoderTuner.tune(encoder, train, validation, settings, tuning, encoderFile(out));
            encoder = tuned.graph();
        }
        PromptEmbeddings embeddings = PromptEmbeddings.of(corpus, encoder, settings.maxTokens(), cache);

        long start = System.nanoTime();
        TrainedRanker trained = RankerTrainer.train(train, embeddings.of(train), validation, embeddings.of(validation), settings);
        if (tuned != null) {
            trained = trained.withTunedEncoder(tuned.graph(), tuned.metadata());
        }
        System.out.printf(Locale.ROOT, "trained %s in %.1f s%n", settings, (System.nanoTime() - start) / 1e9);
        try (RankerModel model = trained.model("trained model")) {
            trained = trained.withEvaluation(heldOutFigures(model, corpus, embeddings));
        }
        trained.writeTo(out);
        ShippedModel.printWritten(out, trained.metadata().evaluation());
    }

    /** The tuned encoder's file name beside the head's: {@code ranker.onnx} → {@code ranker-encoder.onnx}. */
    static String encoderFile(Path out) {
        String name = out.getFileName().toString();
        return (name.endsWith(".onnx") ? name.substring(0, name.length() - ".onnx".length()) : name) + "-encoder.onnx";
    }

    /** {@code --stack-folds} (0: the head alone), {@code --stack-trees}, {@code --stack-depth}, {@code --stack-learning-rate}. */
    private static TreeStacking stacking(Flags flags, TreeStacking defaults) {
        TrainingSettings trees = defaults.boosting();
        return new TreeStacking(flags.integer("stack-folds", defaults.folds()), new TrainingSettings(
                flags.integer("stack-trees", trees.trees()), flags.integer("stack-depth", trees.maxDepth()),
                flags.number("stack-learning-rate", trees.learningRate()), trees.seed()));
    }

    /** The head's figures on the validation and test splits, pooled and per source. */
    static List<SplitFigures> heldOutFigures(RankerModel model, PromptCorpus corpus, PromptEmbeddings embeddings) {
        return TrainCommand.heldOutFigures(prompts -> figures(model, prompts, embeddings), corpus);
    }

    /** A head's figures on {@code prompts}, scored from their cached embeddings. */
    static Figures figures(RankerModel model, List<LabeledPrompt> prompts, PromptEmbeddings embeddings) {
        List<Estimate> estimates = embeddings.estimates(model, prompts);
        return Evaluation.evaluate(prompts, (index, answer) -> estimates.get(index));
    }
}
