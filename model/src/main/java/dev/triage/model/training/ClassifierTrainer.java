package dev.triage.model.training;

import dev.triage.features.LexicalFeatures;
import dev.triage.model.LengthClass;
import dev.triage.model.classifier.ClassifierMetadata;
import dev.triage.model.data.AnswerTokens;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.TargetModels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;

/**
 * Trains the length classifier with XGBoost4J and exports it to ONNX: a 3-class
 * {@code multi:softprob} model over {@link LexicalFeatures}, one training row per answer (each
 * labeled with its own {@link LengthClass}), so a prompt that half the target models answer at
 * length learns P(long) ≈ 0.5.
 *
 * <p>Row weights: each prompt weighs the same in total, shared among its answers (AlpacaEval has 30
 * answers per prompt, ShareGPT one), and the classes are balanced: each class's rows together weigh
 * a third, so the rare long answers are not drowned by the short and medium ones.
 *
 * <pre>{@code
 * TrainedClassifier trained = ClassifierTrainer.train(corpus.prompts(PromptSplit.TRAIN), TrainingSettings.DEFAULTS);
 * trained.writeTo(Path.of("model/src/main/resources/models/classifier.onnx"));
 * }</pre>
 */
public final class ClassifierTrainer {

    static final String WEIGHTING = "each prompt weighs 1, shared equally among its answers; "
            + "classes balanced to equal total weight";

    private static final int CLASSES = LengthClass.values().length;

    private ClassifierTrainer() {}

    public static TrainedClassifier train(List<LabeledPrompt> prompts, TrainingSettings settings) {
        Rows rows = Rows.of(prompts);
        if (rows.count == 0) {
            throw new IllegalArgumentException("prompts: no answers to train on");
        }
        byte[] boosterJson;
        try {
            boosterJson = boost(rows, settings);
        } catch (XGBoostError e) {
            throw new IllegalStateException("XGBoost training failed: " + e.getMessage(), e);
        }
        byte[] onnx = OnnxTreeEnsembleWriter.write(boosterJson, LexicalFeatures.COUNT, CLASSES);
        return new TrainedClassifier(onnx, metadata(prompts, rows, settings));
    }

    private static byte[] boost(Rows rows, TrainingSettings settings) throws XGBoostError {
        DMatrix matrix = new DMatrix(rows.features, rows.count, LexicalFeatures.COUNT, Float.NaN);
        try {
            matrix.setLabel(rows.labels);
            matrix.setWeight(rows.weights);
            Map<String, Object> parameters = new HashMap<>();
            parameters.put("objective", "multi:softprob");
            parameters.put("num_class", CLASSES);
            return boost(matrix, parameters, settings);
        } finally {
            matrix.dispose();
        }
    }

    /**
     * XGBoost's JSON model of {@code settings.trees()} rounds on {@code matrix}, with the objective's
     * {@code parameters} and the settings' depth, learning rate and seed (histogram trees, every core).
     */
    static byte[] boost(DMatrix matrix, Map<String, Object> parameters, TrainingSettings settings) throws XGBoostError {
        Map<String, Object> all = new HashMap<>(parameters);
        all.put("max_depth", settings.maxDepth());
        all.put("eta", settings.learningRate());
        all.put("seed", settings.seed());
        all.put("tree_method", "hist");
        all.put("nthread", Runtime.getRuntime().availableProcessors());
        all.put("verbosity", 0);
        Booster booster = XGBoost.train(matrix, all, settings.trees(), Map.of(), null, null);
        try {
            return booster.toByteArray("json");
        } finally {
            booster.dispose();
        }
    }

    private static ClassifierMetadata metadata(List<LabeledPrompt> prompts, Rows rows, TrainingSettings settings) {
        List<Double> means = Arrays.stream(PromptCorpus.meanAnswerTokens(prompts)).boxed().toList();
        ClassifierMetadata.Training training = new ClassifierMetadata.Training(settings.trees(), settings.maxDepth(),
                settings.learningRate(), settings.seed(), prompts.size(), rows.count,
                Arrays.stream(rows.perClass).boxed().toList(), WEIGHTING, TargetModels.EXCLUDED);
        return new ClassifierMetadata(LexicalFeatures.SCHEMA_VERSION, LexicalFeatures.NAMES,
                ClassifierMetadata.ClassBounds.current(), means, AnswerTokens.TOKENIZER, training, dataSources(prompts),
                List.of());
    }

    /** The sources of training prompts, with provenance, licence and counts, as model metadata lists them. */
    static List<ClassifierMetadata.DataSource> dataSources(List<LabeledPrompt> prompts) {
        List<ClassifierMetadata.DataSource> data = new ArrayList<>();
        for (PromptSource source : PromptSource.values()) {
            List<LabeledPrompt> fromSource = prompts.stream().filter(p -> p.source() == source).toList();
            if (!fromSource.isEmpty()) {
                data.add(new ClassifierMetadata.DataSource(source.id(), source.provenance(), source.licence(),
                        fromSource.size(), fromSource.stream().mapToInt(p -> p.answers().size()).sum()));
            }
        }
        return data;
    }

    /** The training matrix: one row per answer, with label and weight. */
    private static final class Rows {
        float[] features;
        float[] labels;
        float[] weights;
        int count;
        final int[] perClass = new int[CLASSES];

        static Rows of(List<LabeledPrompt> prompts) {
            Rows rows = new Rows();
            rows.count = prompts.stream().mapToInt(p -> p.answers().size()).sum();
            rows.features = new float[rows.count * LexicalFeatures.COUNT];
            rows.labels = new float[rows.count];
            rows.weights = new float[rows.count];
            double[] classWeight = new double[CLASSES];
            float[] promptFeatures = new float[LexicalFeatures.COUNT];
            int row = 0;
            for (LabeledPrompt prompt : prompts) {
                LexicalFeatures.extract(prompt.prompt(), promptFeatures);
                double share = 1.0 / prompt.answers().size();
                for (PromptAnswer answer : prompt.answers()) {
                    int label = LengthClass.of(answer.answerTokens()).ordinal();
                    System.arraycopy(promptFeatures, 0, rows.features, row * LexicalFeatures.COUNT, LexicalFeatures.COUNT);
                    rows.labels[row] = label;
                    rows.weights[row] = (float) share;
                    classWeight[label] += share;
                    rows.perClass[label]++;
                    row++;
                }
            }
            double total = Arrays.stream(classWeight).sum();
            int present = (int) Arrays.stream(classWeight).filter(w -> w > 0).count();
            for (int i = 0; i < rows.count; i++) {
                rows.weights[i] *= (float) (total / (present * classWeight[(int) rows.labels[i]]));
            }
            return rows;
        }
    }
}
