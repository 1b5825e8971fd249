package dev.triage.model.training;

import dev.triage.model.Estimate;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.lexical.LexicalMetadata;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code scripts/evaluate --estimator lexical}: the shipped {@code lexical} model on the test split
 * (pooled, per source, per family), across sources (trained again without each), its ties and its
 * latency; writes {@code docs/lexical-evaluation.md}. About two minutes on two cores.
 *
 * <pre>
 * scripts/evaluate --estimator lexical [--data ../shared/data] [--model model/src/main/resources/models/lexical.onnx]
 *     [--out docs/lexical-evaluation.md]
 * </pre>
 */
final class LexicalEvaluateCommand {

    static final Path DEFAULT_REPORT = Path.of("docs/lexical-evaluation.md");

    private LexicalEvaluateCommand() {}

    static void run(Flags flags) throws IOException {
        Path modelFile = flags.path("model", LexicalTrainCommand.DEFAULT_OUT.toString());
        Path out = flags.path("out", DEFAULT_REPORT.toString());
        Path data = TrainingFlags.promptResponse(flags);
        flags.finish();
        PromptCorpus corpus = TrainCommand.loadCorpus(data);
        String report;
        try (LexicalEstimator shipped = LexicalEstimator.load(modelFile)) {
            report = evaluate(corpus, shipped, modelFile);
        }
        System.out.println(report);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
    }

    static String evaluate(PromptCorpus corpus, LexicalEstimator shipped, Path modelFile) {
        LexicalMetadata metadata = shipped.metadata();
        LexicalMetadata.Training training = metadata.training();
        LexicalSettings settings = new LexicalSettings(LexicalSettings.Objective.of(metadata.objective()),
                new TrainingSettings(training.trees(), training.maxDepth(), training.learningRate(), training.seed()));
        StringBuilder text = new StringBuilder("# Lexical estimator: evaluation\n\n")
                .append("Written by `scripts/evaluate --estimator lexical` for the model `").append(modelFile).append("` (")
                .append(metadata.objective()).append(String.format(Locale.ROOT, ", %d trees of depth %d, learning rate %s, seed %d; ",
                        training.trees(), training.maxDepth(), training.learningRate(), training.seed()))
                .append(String.format(Locale.ROOT, "trained on %,d prompts, %,d answers", training.prompts(), training.answers()))
                .append("). Do not edit by hand: run the command again.\n\n")
                .append("## Setup\n\n")
                .append("- **Features**: `RequestFeatures` (").append(metadata.featureNames().size()).append(" columns: ")
                .append(String.join(", ", metadata.featureNames())).append(").\n")
                .append("- **Objective**: ").append(metadata.objective().equals("regression")
                        ? "squared error on ln(1 + answer tokens) less the answering model's mean of it, so that only the "
                                + "order within a model is learned"
                        : "XGBoost's rank:pairwise, each answering model's answers one query group")
                .append("; weighting: ").append(training.weighting()).append(".\n")
                .append("- **Data, split, target models, metrics**: as in [classifier-evaluation.md](classifier-evaluation.md); the ")
                .append("calibration from score to tokens is strictly increasing (fitted on the validation split), so the ")
                .append("ranking figures are the trees' own order.\n\n");
        Function<List<LabeledPrompt>, List<Estimate>> estimates = prompts -> shipped.estimateAll(
                prompts.stream().map(LabeledPrompt::request).toList());
        HeldOutReport report = new HeldOutReport(corpus, "lexical");
        report.testSplit(estimates);
        report.crossSource((train, validation) -> {
            TrainedLexical trained = LexicalTrainer.train(train, validation, settings);
            return prompts -> {
                try (LexicalEstimator estimator = trained.estimator("cross-source")) {
                    return estimator.estimateAll(prompts.stream().map(LabeledPrompt::request).toList());
                }
            };
        }, Duration.ofMinutes(2));
        report.ties(estimates);
        report.latency(Latency.measure(shipped, corpus.prompts(PromptSplit.TEST).stream().map(LabeledPrompt::request).toList()));
        return text.append(report.markdown()).toString();
    }
}
