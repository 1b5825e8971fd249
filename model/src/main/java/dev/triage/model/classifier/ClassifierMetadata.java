package dev.triage.model.classifier;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.triage.features.LexicalFeatures;
import dev.triage.model.LengthClass;
import dev.triage.model.evaluation.Figures;
import java.util.List;
import java.util.Map;

/**
 * What travels beside a classifier's ONNX file as JSON ({@code classifier.onnx} →
 * {@code classifier.json}): what the model expects (feature schema, class bounds), what its
 * classes mean in tokens, how and on what it was trained, and how it scored.
 *
 * @param schemaVersion {@link LexicalFeatures#SCHEMA_VERSION} of the features it was trained on
 * @param featureNames the input columns, in order
 * @param classBounds the token bounds of its classes
 * @param meanAnswerTokens mean answer length of each class (short, medium, long) in the training data;
 *     expected tokens = Σ P(class) × mean(class)
 * @param tokenizer how answer lengths were counted
 * @param training how it was trained
 * @param data the sources it was trained on, with provenance and licences
 * @param evaluation its figures on held-out prompts
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ClassifierMetadata(String schemaVersion, List<String> featureNames, ClassBounds classBounds,
        List<Double> meanAnswerTokens, String tokenizer, Training training, List<DataSource> data,
        List<SplitFigures> evaluation) {

    /** The bounds of {@link LengthClass}. */
    public record ClassBounds(int mediumFrom, int longFrom) {
        public static ClassBounds current() {
            return new ClassBounds(LengthClass.MEDIUM_FROM, LengthClass.LONG_FROM);
        }
    }

    /**
     * @param trees boosting rounds; with 3 classes the ensemble holds 3 × trees trees
     * @param maxDepth maximum tree depth
     * @param learningRate shrinkage (XGBoost's eta)
     * @param seed random seed
     * @param prompts distinct training prompts
     * @param answers training rows (one per answer)
     * @param answersPerClass training answers per class (short, medium, long)
     * @param weighting how rows were weighted
     * @param excludedModels answering models left out of the target family, with why
     */
    public record Training(int trees, int maxDepth, double learningRate, long seed, int prompts, int answers,
            List<Integer> answersPerClass, String weighting, Map<String, String> excludedModels) {}

    /** One training source with its provenance and licence. */
    public record DataSource(String source, String provenance, String licence, int prompts, int answers) {}

    /** Figures on one held-out set: {@code split} is validation or test, {@code source} a source id or "all". */
    public record SplitFigures(String split, String source, Figures figures) {}

    /** This metadata with evaluation figures added. */
    public ClassifierMetadata withEvaluation(List<SplitFigures> figures) {
        return new ClassifierMetadata(schemaVersion, featureNames, classBounds, meanAnswerTokens, tokenizer, training,
                data, List.copyOf(figures));
    }

    /**
     * Why a model with this metadata cannot serve this build, or null when it can: its features,
     * class bounds and class means must match what this build computes and expects.
     */
    String incompatibility() {
        if (!LexicalFeatures.SCHEMA_VERSION.equals(schemaVersion)) {
            return "feature schema " + schemaVersion + " (expected: " + LexicalFeatures.SCHEMA_VERSION + ")";
        }
        if (!LexicalFeatures.NAMES.equals(featureNames)) {
            return "feature names " + featureNames + " (expected: " + LexicalFeatures.NAMES + ")";
        }
        if (!ClassBounds.current().equals(classBounds)) {
            return "class bounds " + classBounds + " (expected: " + ClassBounds.current() + ")";
        }
        if (meanAnswerTokens == null || meanAnswerTokens.size() != LengthClass.values().length
                || meanAnswerTokens.stream().anyMatch(m -> m == null || !(m >= 0) || m.isInfinite())) {
            return "meanAnswerTokens " + meanAnswerTokens + " (expected: 3 finite numbers >= 0)";
        }
        return null;
    }
}
