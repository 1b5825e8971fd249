package dev.triage.model.training;

import dev.triage.features.Prompt;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.FeedbackAnswers;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.ranker.RankerEstimator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code scripts/train}: trains the length classifier on the training split of the shared data
 * and writes the ONNX model with its metadata, figures on the validation and test splits included.
 * With {@code --estimator ranker} or {@code lexical}, trains that estimator instead ({@link RankerTrainCommand},
 * {@link LexicalTrainCommand}).
 *
 * <pre>
 * scripts/train [--estimator classifier] [--data ../shared/data] [--out model/src/main/resources/models/classifier.onnx]
 *               [--trees 300] [--max-depth 6] [--learning-rate 0.1] [--seed 42]
 * </pre>
 */
public final class TrainCommand {

    /** Where the shipped model lives, relative to the repository root. */
    public static final Path DEFAULT_OUT = Path.of("model/src/main/resources" + ClassifierEstimator.DEFAULT_MODEL_RESOURCE);

    private TrainCommand() {}

    public static void main(String[] args) {
        try {
            Flags flags = Flags.parse(args);
            String estimator = TrainingFlags.estimator(flags);
            if (estimator.equals(RankerEstimator.NAME)) {
                RankerTrainCommand.run(flags);
                return;
            }
            if (estimator.equals(LexicalEstimator.NAME)) {
                LexicalTrainCommand.run(flags);
                return;
            }
            TrainingSettings defaults = TrainingSettings.DEFAULTS;
            TrainingSettings settings = new TrainingSettings(flags.integer("trees", defaults.trees()),
                    flags.integer("max-depth", defaults.maxDepth()),
                    flags.number("learning-rate", defaults.learningRate()),
                    flags.integer("seed", (int) defaults.seed()));
            Path out = flags.path("out", DEFAULT_OUT.toString());
            Path data = TrainingFlags.promptResponse(flags);
            Optional<Path> feedback = TrainingFlags.feedback(flags);
            flags.finish();
            train(loadCorpus(data, feedback), settings, out);
        } catch (IllegalArgumentException e) {
            System.err.println("train: " + e.getMessage());
            System.exit(2);
        } catch (IOException | ModelLoadException e) {
            System.err.println("train: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void train(PromptCorpus corpus, TrainingSettings settings, Path out) throws IOException {
        long start = System.nanoTime();
        TrainedClassifier trained = ClassifierTrainer.train(corpus.prompts(PromptSplit.TRAIN), settings);
        System.out.printf(Locale.ROOT, "trained %s in %.1f s%n", settings, (System.nanoTime() - start) / 1e9);
        try (ClassifierEstimator estimator = trained.estimator("trained model")) {
            trained = trained.withEvaluation(heldOutFigures(estimator, corpus));
        }
        trained.writeTo(out);
        ShippedModel.printWritten(out, trained.metadata().evaluation());
    }

    /** Loads the prompt/answer sources into a corpus, printing what was read. */
    static PromptCorpus loadCorpus(Path promptResponse) throws IOException {
        return loadCorpus(promptResponse, Optional.empty());
    }

    /**
     * Loads the prompt/answer sources, and a deployment's feedback log when given, into a corpus,
     * printing what was read. The feedback's prompts are split as every prompt is, by their text.
     */
    static PromptCorpus loadCorpus(Path promptResponse, Optional<Path> feedback) throws IOException {
        long start = System.nanoTime();
        List<PromptAnswer> answers = new ArrayList<>(PromptResponseLoader.load(promptResponse));
        if (feedback.isPresent()) {
            List<PromptAnswer> fed = FeedbackAnswers.load(feedback.get());
            System.out.printf(Locale.ROOT, "read %,d answers from the feedback log %s%n", fed.size(), feedback.get());
            answers.addAll(fed);
        }
        PromptCorpus corpus = PromptCorpus.of(answers);
        System.out.printf(Locale.ROOT, "read %,d answers from %s in %.1f s; %,d prompts with target-model answers%n",
                answers.size(), promptResponse, (System.nanoTime() - start) / 1e9, corpus.prompts().size());
        for (PromptSplit split : PromptSplit.values()) {
            List<?> prompts = corpus.prompts(split);
            System.out.printf(Locale.ROOT, "  %-10s %,6d prompts%n", split.name().toLowerCase(Locale.ROOT), prompts.size());
        }
        return corpus;
    }

    /** The estimator's figures on the validation and test splits, pooled and per source. */
    static List<SplitFigures> heldOutFigures(JobEstimator<Prompt> estimator, PromptCorpus corpus) {
        return heldOutFigures(prompts -> Evaluation.evaluate(estimator, prompts), corpus);
    }

    /** The figures {@code evaluation} computes on the validation and test splits, pooled and per source. */
    static List<SplitFigures> heldOutFigures(Function<List<LabeledPrompt>, Figures> evaluation, PromptCorpus corpus) {
        List<SplitFigures> figures = new ArrayList<>();
        for (PromptSplit split : List.of(PromptSplit.VALIDATION, PromptSplit.TEST)) {
            String splitName = split.name().toLowerCase(Locale.ROOT);
            figures.add(new SplitFigures(splitName, "all", evaluation.apply(corpus.prompts(split))));
            for (PromptSource source : PromptSource.values()) {
                if (!corpus.prompts(split, source).isEmpty()) {
                    figures.add(new SplitFigures(splitName, source.id(), evaluation.apply(corpus.prompts(split, source))));
                }
            }
        }
        return figures;
    }
}
