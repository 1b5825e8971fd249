package dev.triage.model.training;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ClassifierMetadata;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.cli.Flags;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.evaluation.Evaluation;
import dev.triage.model.evaluation.Figures;
import dev.triage.model.evaluation.PromptCeiling;
import dev.triage.model.evaluation.PromptLengthRule;
import dev.triage.model.evaluation.RandomOrder;
import dev.triage.model.evaluation.TwoClassRule;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.ranker.RankerEstimator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code scripts/evaluate}: measures a trained classifier against the baselines on the test split,
 * per source, and across sources (train on one, test on another), and writes the report. With
 * {@code --estimator ranker} or {@code lexical}, evaluates that estimator instead ({@link RankerEvaluateCommand},
 * {@link LexicalEvaluateCommand}).
 *
 * <pre>
 * scripts/evaluate [--estimator classifier] [--data ../shared/data]
 *                  [--model model/src/main/resources/models/classifier.onnx] [--out docs/classifier-evaluation.md]
 * </pre>
 *
 * <p>Every baseline that needs fitting (the prompt-length rule's threshold, the rules' class means)
 * is fit on the training split; the test split is only scored.
 */
public final class EvaluateCommand {

    public static final Path DEFAULT_REPORT = Path.of("docs/classifier-evaluation.md");

    private EvaluateCommand() {}

    public static void main(String[] args) {
        try {
            Flags flags = Flags.parse(args);
            String estimator = TrainingFlags.estimator(flags);
            if (estimator.equals(RankerEstimator.NAME)) {
                RankerEvaluateCommand.run(flags);
                return;
            }
            if (estimator.equals(LexicalEstimator.NAME)) {
                LexicalEvaluateCommand.run(flags);
                return;
            }
            Path model = flags.path("model", TrainCommand.DEFAULT_OUT.toString());
            Path out = flags.path("out", DEFAULT_REPORT.toString());
            Path data = TrainingFlags.promptResponse(flags);
            flags.finish();
            PromptCorpus corpus = TrainCommand.loadCorpus(data);
            String report;
            try (ClassifierEstimator classifier = ClassifierEstimator.load(model)) {
                report = evaluate(corpus, classifier, model);
            }
            System.out.println(report);
            Path parent = out.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Files.writeString(out, report, StandardCharsets.UTF_8);
            System.out.println("wrote " + out);
        } catch (IllegalArgumentException e) {
            System.err.println("evaluate: " + e.getMessage());
            System.exit(2);
        } catch (IOException | ModelLoadException e) {
            System.err.println("evaluate: " + e.getMessage());
            System.exit(1);
        }
    }

    static String evaluate(PromptCorpus corpus, ClassifierEstimator classifier, Path modelFile) {
        List<LabeledPrompt> train = corpus.prompts(PromptSplit.TRAIN);
        double[] trainMeans = PromptCorpus.meanAnswerTokens(train);
        List<JobEstimator<Prompt>> methods = List.of(classifier, new BaselineEstimator(),
                PromptLengthRule.fit(train, trainMeans), TwoClassRule.keywordHeuristic(trainMeans), new RandomOrder());
        List<PromptSource> sources = sourcesWithTestPrompts(corpus);

        EvaluationReport report = new EvaluationReport(corpus, classifier.metadata(), modelFile);
        report.testSplit("all sources", figuresOf(methods, corpus.prompts(PromptSplit.TEST)),
                PromptCeiling.figures(corpus.prompts(PromptSplit.TEST)));
        for (PromptSource source : sources) {
            List<LabeledPrompt> test = corpus.prompts(PromptSplit.TEST, source);
            report.testSplit(source.id(), figuresOf(methods, test), PromptCeiling.figures(test));
        }
        report.crossDataset(sources, crossDataset(corpus, sources, classifier));
        return report.markdown();
    }

    static List<PromptSource> sourcesWithTestPrompts(PromptCorpus corpus) {
        List<PromptSource> sources = new ArrayList<>();
        for (PromptSource source : PromptSource.values()) {
            if (!corpus.prompts(PromptSplit.TEST, source).isEmpty() && !corpus.prompts(PromptSplit.TRAIN, source).isEmpty()) {
                sources.add(source);
            }
        }
        return sources;
    }

    private static Map<String, Figures> figuresOf(List<JobEstimator<Prompt>> methods, List<LabeledPrompt> prompts) {
        Map<String, Figures> figures = new LinkedHashMap<>();
        for (JobEstimator<Prompt> method : methods) {
            figures.put(method.name(), Evaluation.evaluate(method, prompts));
        }
        return figures;
    }

    /**
     * Rows: a classifier trained on each source's training split alone (with the evaluated model's
     * settings), the evaluated model (all sources), and the prompt length with no training.
     * Columns: each source's test split.
     */
    static Map<String, Map<PromptSource, Figures>> crossDataset(PromptCorpus corpus, List<PromptSource> sources,
            ClassifierEstimator shipped) {
        ClassifierMetadata.Training training = shipped.metadata().training();
        TrainingSettings settings = new TrainingSettings(training.trees(), training.maxDepth(), training.learningRate(),
                training.seed());
        Map<String, Map<PromptSource, Figures>> rows = new LinkedHashMap<>();
        for (PromptSource trainSource : sources) {
            TrainedClassifier trained = ClassifierTrainer.train(corpus.prompts(PromptSplit.TRAIN, trainSource), settings);
            try (ClassifierEstimator estimator = trained.estimator("trained on " + trainSource.id())) {
                rows.put(trainSource.id(), testEach(estimator, corpus, sources));
            }
        }
        rows.put("all sources (evaluated model)", testEach(shipped, corpus, sources));
        rows.put("prompt length (no training)", testEach(new BaselineEstimator(), corpus, sources));
        return rows;
    }

    private static Map<PromptSource, Figures> testEach(JobEstimator<Prompt> estimator, PromptCorpus corpus,
            List<PromptSource> sources) {
        Map<PromptSource, Figures> row = new LinkedHashMap<>();
        for (PromptSource testSource : sources) {
            row.put(testSource, Evaluation.evaluate(estimator, corpus.prompts(PromptSplit.TEST, testSource)));
        }
        return row;
    }
}
