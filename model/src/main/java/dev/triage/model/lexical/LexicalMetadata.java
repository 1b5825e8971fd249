package dev.triage.model.lexical;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.triage.features.RequestFeatures;
import dev.triage.model.classifier.ClassifierMetadata.DataSource;
import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.ranker.ScoreCalibration;
import java.util.List;
import java.util.Map;

/**
 * What travels beside a {@code lexical} model's ONNX file as JSON ({@code lexical.onnx} →
 * {@code lexical.json}): the features it reads, how it was trained, the calibration from its score
 * to tokens, the data it saw and how it scored on held-out prompts.
 *
 * @param schemaVersion {@link RequestFeatures#SCHEMA_VERSION} of the features it was trained on
 * @param featureNames the input columns, in order
 * @param objective what the trees were fitted to ({@code regression}: ln(1 + answer tokens) less the
 *     answering model's mean; {@code pairwise}: XGBoost's {@code rank:pairwise} within each answering model)
 * @param training how it was trained
 * @param calibration score → expected answer tokens, strictly increasing, fitted on the validation split
 * @param tokenizer how answer lengths were counted
 * @param data the sources it was trained on, with provenance and licences
 * @param evaluation its figures on held-out prompts
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LexicalMetadata(String schemaVersion, List<String> featureNames, String objective, Training training,
        ScoreCalibration calibration, String tokenizer, List<DataSource> data, List<SplitFigures> evaluation) {

    /**
     * @param trees boosting rounds
     * @param maxDepth maximum tree depth
     * @param learningRate shrinkage (XGBoost's eta)
     * @param seed random seed
     * @param prompts distinct training prompts
     * @param answers training rows (one per answer)
     * @param weighting how rows were weighted
     * @param excludedModels answering models left out of the target family, with why
     */
    public record Training(int trees, int maxDepth, double learningRate, long seed, int prompts, int answers, String weighting,
            Map<String, String> excludedModels) {}

    /** This metadata with evaluation figures added. */
    public LexicalMetadata withEvaluation(List<SplitFigures> figures) {
        return new LexicalMetadata(schemaVersion, featureNames, objective, training, calibration, tokenizer, data,
                List.copyOf(figures));
    }

    /** Why a model with this metadata cannot serve this build, or null when it can. */
    String incompatibility() {
        if (!RequestFeatures.SCHEMA_VERSION.equals(schemaVersion)) {
            return "feature schema " + schemaVersion + " (expected: " + RequestFeatures.SCHEMA_VERSION + ")";
        }
        if (!RequestFeatures.NAMES.equals(featureNames)) {
            return "feature names " + featureNames + " (expected: " + RequestFeatures.NAMES + ")";
        }
        if (calibration == null) {
            return "no calibration (expected: score → tokens knots)";
        }
        return null;
    }
}
