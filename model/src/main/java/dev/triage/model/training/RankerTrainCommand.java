package dev.triage.model.training;

import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code scripts/train --estimator ranker}: embeds the corpus with the sentence encoder (cached),
 * trains the ranking head on the training split, fits its calibration on the validation split, and
 * writes the head's ONNX file and metadata, figures on the validation and test splits included.
 *
 * <pre>
 * scripts/train --estimator ranker [--data ../shared/data] [--out model/src/main/resources/models/ranker.onnx]
 *     [--objective pairwise|pointwise|listwise] [--min-length-difference 0.2] [--margin 1.0] [--hidden-units 128]
 *     [--learning-rate 0.0003] [--steps 3000] [--batch-size 256] [--list-size 32] [--weight-decay 0] [--seed 42]
 *     [--max-tokens 256] [--embedding-cache model/target/ranker-embeddings]
 * </pre>
 */
final class RankerTrainCommand {

    static final Set<String> ARGUMENTS = Set.of("estimator", "data", "out", "objective", "min-length-difference", "margin",
            "hidden-units", "learning-rate", "steps", "batch-size", "list-size", "weight-decay", "seed", "max-tokens",
            "embedding-cache");

    /** Where the shipped head lives, relative to the repository root. */
    static final Path DEFAULT_OUT = Path.of("model/src/main/resources" + RankerEstimator.DEFAULT_MODEL_RESOURCE);

    private RankerTrainCommand() {}

    static void run(CommandArguments arguments) throws IOException {
        RankerSettings defaults = RankerSettings.DEFAULTS;
        RankerSettings settings = new RankerSettings(
                RankingObjective.of(arguments.get("objective", defaults.objective().id())),
                arguments.getDouble("min-length-difference", defaults.minLengthDifference()),
                arguments.getDouble("margin", defaults.margin()),
                arguments.getInt("hidden-units", defaults.hiddenUnits()),
                arguments.getDouble("learning-rate", defaults.learningRate()),
                arguments.getInt("steps", defaults.steps()),
                arguments.getInt("batch-size", defaults.batchSize()),
                arguments.getInt("list-size", defaults.listSize()),
                arguments.getDouble("weight-decay", defaults.weightDecay()),
                arguments.getInt("seed", (int) defaults.seed()),
                arguments.getInt("max-tokens", defaults.maxTokens()));
        Path out = Path.of(arguments.get("out", DEFAULT_OUT.toString()));
        Path cache = Path.of(arguments.get("embedding-cache", EmbeddingCache.DEFAULT_DIRECTORY.toString()));
        PromptCorpus corpus = TrainCommand.loadCorpus(arguments.promptResponse());
        PromptEmbeddings embeddings = PromptEmbeddings.of(corpus, settings.maxTokens(), cache);

        long start = System.nanoTime();
        List<LabeledPrompt> train = corpus.prompts(PromptSplit.TRAIN);
        List<LabeledPrompt> validation = corpus.prompts(PromptSplit.VALIDATION);
        TrainedRanker trained = RankerTrainer.train(train, embeddings.of(train), validation, embeddings.of(validation), settings);
        System.out.printf(Locale.ROOT, "trained %s in %.1f s%n", settings, (System.nanoTime() - start) / 1e9);
        try (RankerModel model = trained.model("trained model")) {
            trained = trained.withEvaluation(heldOutFigures(model, corpus, embeddings));
        }
        trained.writeTo(out);
        Path metadata = ModelFiles.metadataPath(out);
        System.out.printf(Locale.ROOT, "wrote %s (%,d bytes) and %s (%,d bytes)%n", out, Files.size(out), metadata,
                Files.size(metadata));
        for (SplitFigures figures : trained.metadata().evaluation()) {
            System.out.println(figures.split() + " / " + figures.source() + ": " + figures.figures());
        }
    }

    /** The head's figures on the validation and test splits, pooled and per source. */
    static List<SplitFigures> heldOutFigures(RankerModel model, PromptCorpus corpus, PromptEmbeddings embeddings) {
        return TrainCommand.heldOutFigures(prompts -> figures(model, prompts, embeddings), corpus);
    }

    /** A head's figures on {@code prompts}, scored from their cached embeddings. */
    static Figures figures(RankerModel model, List<LabeledPrompt> prompts, PromptEmbeddings embeddings) {
        List<Estimate> estimates = model.estimates(embeddings.of(prompts));
        return Evaluation.evaluate(prompts, (index, answer) -> estimates.get(index));
    }
}
