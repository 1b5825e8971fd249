package dev.triage.model.training;

import dev.triage.model.cli.Flags;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.lexical.LexicalEstimator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code scripts/train --estimator lexical}: trains the {@code lexical} tree ensemble on the training
 * split, calibrates it on the validation split, and writes the ONNX model and its metadata, figures
 * on the validation and test splits included (about a minute on two cores).
 *
 * <pre>
 * scripts/train --estimator lexical [--data ../shared/data] [--out model/src/main/resources/models/lexical.onnx]
 *     [--objective regression|pairwise] [--trees 200] [--max-depth 4] [--learning-rate 0.05] [--seed 42]
 * </pre>
 */
final class LexicalTrainCommand {

    /** Where the shipped model lives, relative to the repository root. */
    static final Path DEFAULT_OUT = Path.of("model/src/main/resources" + LexicalEstimator.DEFAULT_MODEL_RESOURCE);

    private LexicalTrainCommand() {}

    static void run(Flags flags) throws IOException {
        LexicalSettings defaults = LexicalSettings.DEFAULTS;
        TrainingSettings boosting = defaults.boosting();
        LexicalSettings settings = new LexicalSettings(
                LexicalSettings.Objective.of(flags.string("objective", defaults.objective().id())),
                new TrainingSettings(flags.integer("trees", boosting.trees()), flags.integer("max-depth", boosting.maxDepth()),
                        flags.number("learning-rate", boosting.learningRate()), flags.integer("seed", (int) boosting.seed())));
        Path out = flags.path("out", DEFAULT_OUT.toString());
        Path data = TrainingFlags.promptResponse(flags);
        Optional<Path> feedback = TrainingFlags.feedback(flags);
        flags.finish();
        PromptCorpus corpus = TrainCommand.loadCorpus(data, feedback);
        long start = System.nanoTime();
        TrainedLexical trained = LexicalTrainer.train(corpus.prompts(PromptSplit.TRAIN), corpus.prompts(PromptSplit.VALIDATION),
                settings);
        System.out.printf(Locale.ROOT, "trained %s in %.1f s%n", settings, (System.nanoTime() - start) / 1e9);
        try (LexicalEstimator estimator = trained.estimator("trained model")) {
            trained = trained.withEvaluation(TrainCommand.heldOutFigures(estimator, corpus));
        }
        trained.writeTo(out);
        ShippedModel.printWritten(out, trained.metadata().evaluation());
    }
}
