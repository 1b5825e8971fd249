package dev.triage.model.training;

import dev.triage.features.RequestFeatures;
import dev.triage.model.data.AnswerTokens;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.TargetModels;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.lexical.LexicalMetadata;
import dev.triage.model.ranker.ScoreCalibration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoostError;

/**
 * Trains the {@code lexical} estimator with XGBoost4J: trees over {@link RequestFeatures} fitted so
 * that a prompt scores higher the longer its answers are <em>next to the same model's other
 * answers</em> — a scheduler orders the requests of the one model behind it, and models differ
 * threefold in how much they say. Then the strictly increasing calibration from score to tokens is
 * fitted on the validation split, and the trees are exported as an ONNX {@code TreeEnsembleRegressor}.
 *
 * <p>Rows: one per answer. Weights: each source weighs the same in total, shared equally among its
 * answering models, so that AlpacaEval's 26 models do not drown the arena benchmarks and ShareGPT,
 * and a long-winded model counts as much as a terse one.
 *
 * <pre>{@code
 * TrainedLexical trained = LexicalTrainer.train(train, validation, LexicalSettings.DEFAULTS);
 * }</pre>
 */
public final class LexicalTrainer {

    static final String WEIGHTING = "each source weighs the same, shared equally among its answering models, "
            + "and within a model among its answers";

    private LexicalTrainer() {}

    /**
     * XGBoost's constraint that the score never falls as the prompt or the conversation grows. On
     * the training sources a prompt's length says little (AlpacaEval's instructions are all short),
     * so unconstrained trees learn length effects of either sign from a few prompts; on real users'
     * traffic a longer prompt draws a longer answer more often than not, and the prompt's length
     * alone ranks most pairs right there. The constraint keeps that prior.
     *
     * @param columns the rows' columns, the {@link RequestFeatures} first; the others unconstrained
     */
    static int[] monotoneInLength(int columns) {
        int[] constraints = new int[columns];
        constraints[RequestFeatures.LOG_PROMPT_TOKENS] = 1;
        constraints[RequestFeatures.LOG_CONVERSATION_TOKENS] = 1;
        return constraints;
    }

    private static String constraintList(int[] constraints) {
        StringBuilder list = new StringBuilder("(");
        for (int f = 0; f < constraints.length; f++) {
            list.append(f == 0 ? "" : ",").append(constraints[f]);
        }
        return list.append(')').toString();
    }

    /** The shipped form: trees on {@code train}, calibrated on {@code validation}, with metadata. */
    public static TrainedLexical train(List<LabeledPrompt> train, List<LabeledPrompt> validation, LexicalSettings settings) {
        byte[] booster = boost(train, featureRows(train), monotoneInLength(RequestFeatures.COUNT), settings);
        byte[] onnx = OnnxTreeEnsembleWriter.writeRegressor(booster, RequestFeatures.COUNT);
        ScoreCalibration calibration;
        try (LexicalEstimator uncalibrated = estimator(onnx, metadata(train, settings, placeholderCalibration()))) {
            calibration = IsotonicCalibration.fitPrompts(uncalibrated.scores(
                    validation.stream().map(LabeledPrompt::request).toList()), validation);
        }
        return new TrainedLexical(onnx, metadata(train, settings, calibration));
    }

    /** The feature row of each prompt, in order. */
    static float[][] featureRows(List<LabeledPrompt> prompts) {
        float[][] rows = new float[prompts.size()][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = RequestFeatures.of(prompts.get(i).request());
        }
        return rows;
    }

    /**
     * XGBoost's JSON model of trees fitted to {@code settings.objective()} on the prompts' rows
     * ({@code promptRows[i]} for prompt {@code i}), one training row per answer.
     *
     * @param monotone per column: 1 where the score may only rise with it, −1 only fall, 0 either
     */
    static byte[] boost(List<LabeledPrompt> prompts, float[][] promptRows, int[] monotone, LexicalSettings settings) {
        int columns = monotone.length;
        Groups groups = Groups.of(prompts);
        if (groups.answers == 0) {
            throw new IllegalArgumentException("prompts: no answers to train on");
        }
        float[] data = new float[groups.answers * columns];
        float[] labels = new float[groups.answers];
        float[] rowWeights = new float[groups.answers];
        int[] groupSizes = new int[groups.members.size()];
        float[] groupWeights = new float[groups.members.size()];
        // Weights scaled to a mean of 1 per row (and per group), so that XGBoost's min_child_weight keeps its meaning.
        double rowScale = groups.answers / groups.totalWeight();
        double groupScale = groups.members.size() / groups.totalWeight();
        int row = 0;
        int g = 0;
        for (Map.Entry<String, List<int[]>> group : groups.members.entrySet()) {
            List<int[]> members = group.getValue();
            double meanLog = members.stream().mapToDouble(m -> Math.log1p(m[1])).average().orElseThrow();
            double groupWeight = groups.weight(group.getKey());
            for (int[] member : members) {
                float[] promptRow = promptRows[member[0]];
                if (promptRow.length != columns) {
                    throw new IllegalArgumentException("prompt " + member[0] + ": " + promptRow.length + " columns (expected: " + columns + ")");
                }
                System.arraycopy(promptRow, 0, data, row * columns, columns);
                labels[row] = (float) (Math.log1p(member[1]) - meanLog);
                rowWeights[row] = (float) (rowScale * groupWeight / members.size());
                row++;
            }
            groupSizes[g] = members.size();
            groupWeights[g] = (float) (groupScale * groupWeight);
            g++;
        }
        try {
            DMatrix matrix = new DMatrix(data, groups.answers, columns, Float.NaN);
            try {
                matrix.setLabel(labels);
                Map<String, Object> parameters = new HashMap<>();
                if (settings.objective() == LexicalSettings.Objective.PAIRWISE) {
                    matrix.setGroup(groupSizes);
                    matrix.setWeight(groupWeights);
                    parameters.put("objective", "rank:pairwise");
                } else {
                    matrix.setWeight(rowWeights);
                    parameters.put("objective", "reg:squarederror");
                }
                parameters.put("monotone_constraints", constraintList(monotone));
                return ClassifierTrainer.boost(matrix, parameters, settings.boosting());
            } finally {
                matrix.dispose();
            }
        } catch (XGBoostError e) {
            throw new IllegalStateException("XGBoost training failed: " + e.getMessage(), e);
        }
    }

    private static LexicalEstimator estimator(byte[] onnx, LexicalMetadata metadata) {
        return LexicalEstimator.fromBytes("trained model", onnx, ShippedModel.json(metadata));
    }

    /** A calibration that only lets a model load, so that it can score the validation split. */
    static ScoreCalibration placeholderCalibration() {
        return new ScoreCalibration(List.of(0.0, 1.0), List.of(1.0, 2.0));
    }

    private static LexicalMetadata metadata(List<LabeledPrompt> train, LexicalSettings settings, ScoreCalibration calibration) {
        TrainingSettings boosting = settings.boosting();
        LexicalMetadata.Training training = new LexicalMetadata.Training(boosting.trees(), boosting.maxDepth(),
                boosting.learningRate(), boosting.seed(), train.size(), train.stream().mapToInt(p -> p.answers().size()).sum(),
                WEIGHTING, TargetModels.EXCLUDED);
        return new LexicalMetadata(RequestFeatures.SCHEMA_VERSION, RequestFeatures.NAMES, settings.objective().id(), training,
                calibration, AnswerTokens.TOKENIZER, ClassifierTrainer.dataSources(train), List.of());
    }

    /** Each answering model's answers in one source, (prompt index, answer tokens), and the weights. */
    static final class Groups {
        final Map<String, List<int[]>> members = new LinkedHashMap<>();
        final Map<String, Integer> modelsPerSource = new HashMap<>();
        final Map<String, String> sourceOf = new HashMap<>();
        int answers;

        static Groups of(List<LabeledPrompt> prompts) {
            Groups groups = new Groups();
            for (int i = 0; i < prompts.size(); i++) {
                for (PromptAnswer answer : prompts.get(i).answers()) {
                    String key = answer.modelKey();
                    groups.sourceOf.put(key, answer.source().id());
                    groups.members.computeIfAbsent(key, k -> new ArrayList<>()).add(new int[] {i, answer.answerTokens()});
                    groups.answers++;
                }
            }
            for (String key : groups.members.keySet()) {
                groups.modelsPerSource.merge(groups.sourceOf.get(key), 1, Integer::sum);
            }
            return groups;
        }

        double totalWeight() {
            return members.keySet().stream().mapToDouble(this::weight).sum();
        }

        /** A group's total weight: its source's share, 1, split among the source's models. */
        double weight(String group) {
            return 1.0 / modelsPerSource.get(sourceOf.get(group));
        }
    }
}
