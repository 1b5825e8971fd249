package dev.triage.model.ranker;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.triage.features.RequestFeatures;
import dev.triage.model.classifier.ClassifierMetadata.DataSource;
import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What travels beside a ranking head's ONNX file as JSON ({@code ranker.onnx} → {@code ranker.json}):
 * the encoder the head reads (name, pooling, truncation, dimensions — a head fits only the encoder
 * it was trained on), how it was trained, the calibration from score to tokens, the data it saw,
 * and how it scored on held-out prompts.
 *
 * @param encoder the sentence encoder's name ({@link EncoderSpec#displayName()})
 * @param pooling how token states become one vector ({@link EncoderSpec.Pooling#description})
 * @param maxTokens where texts are cut, in encoder tokens ([CLS] and [SEP] included)
 * @param truncation how a longer text is cut ({@link SentenceEncoder#TRUNCATION})
 * @param featureSchema {@link RequestFeatures#SCHEMA_VERSION} of the features beside the embedding
 * @param featureNames those features' names, in order
 * @param dimensions the embedding's length
 * @param objective {@code pairwise} (margin ranking loss), {@code pointwise} (L1 on log length) or
 *     {@code listwise} (ListMLE)
 * @param margin the margin of the pairwise loss (PARS: 1.0)
 * @param minLengthDifference δ, PARS's {@code min_length_difference}: a pair takes part in pairwise
 *     training only when |L_A − L_B| / max(L_A, L_B) ≥ δ (0: every pair of different lengths)
 * @param training how it was trained
 * @param calibration score → expected answer tokens, fitted on the validation split
 * @param tokenizer how answer lengths were counted
 * @param data the sources it was trained on, with provenance and licences
 * @param evaluation its figures on held-out prompts
 * @param tunedEncoder the encoder's layers as tuned for this head, in a graph beside it, or null when the head reads
 *     the encoder's own graph from its artifact
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RankerMetadata(String encoder, String pooling, int maxTokens, String truncation, String featureSchema,
        List<String> featureNames, int dimensions, String objective,
        double margin, double minLengthDifference, Training training, ScoreCalibration calibration, String tokenizer,
        List<DataSource> data, List<SplitFigures> evaluation, TunedEncoder tunedEncoder) {

    /**
     * @param hiddenUnits ReLU units of the head's hidden layer
     * @param learningRate Adam's step size
     * @param steps Adam steps
     * @param batchSize prompts scored per step (pairs: half as many pairs; lists: batch / list size lists)
     * @param listSize prompts per ListMLE list
     * @param weightDecay decoupled weight decay per step, relative to the learning rate (AdamW)
     * @param seed random seed of initialization and sampling
     * @param lengthPrior w in {@code score = head + w · max(0, z − c)}, z the standardized log prompt length, fixed after
     *     training
     * @param lengthPriorThreshold c
     * @param prompts distinct training prompts
     * @param answers training answers (one length label each)
     * @param pairing how examples are drawn and compared
     * @param calibrationPrompts validation prompts the calibration was fitted on
     * @param excludedModels answering models left out of the target family, with why
     * @param stylesBalanced whether the long-answer style's models were drawn as often in all as the chat style's
     * @param stacking the trees stacked on the head's score, or null for the head alone
     * @param instructionSetPrompts how many of the training prompts are the instruction sets' (answered by their
     *     generators, not by target models); 0 when none is
     */
    public record Training(int hiddenUnits, double learningRate, int steps, int batchSize, int listSize,
            double weightDecay, long seed, double lengthPrior, double lengthPriorThreshold, int prompts, int answers, String pairing,
            int calibrationPrompts, Map<String, String> excludedModels, boolean stylesBalanced, Stacking stacking,
            int instructionSetPrompts) {}

    /**
     * The XGBoost trees stacked on the head's score and the request's features, in the head's ONNX
     * graph: how they were trained.
     *
     * @param folds folds of the training prompts, each scored by a head trained on the others
     * @param trees XGBoost's trees
     * @param maxDepth their depth
     * @param learningRate XGBoost's eta
     * @param seed XGBoost's seed
     * @param method what the trees read and fit
     */
    public record Stacking(int folds, int trees, int maxDepth, double learningRate, long seed, String method) {}

    /**
     * The encoder graph tuned with a head ({@code scripts/train --tune-encoder}): the encoder's graph with its transformer
     * layers trained, with a throwaway head, on the head's pairwise loss, then quantized again.
     *
     * @param file the graph's file name, beside the head's ({@code ranker-encoder.onnx})
     * @param sha256 its SHA-256: a head serves only with the graph it was trained on
     * @param layers transformer layers tuned, the top ones
     * @param steps Adam steps
     * @param pairsPerStep pairs of prompts per step
     * @param learningRate Adam's step size for the layers
     * @param headLearningRate Adam's step size for the throwaway head
     * @param seed random seed of the throwaway head and the pairs drawn
     * @param validationAccuracy ranking accuracy of the throwaway head on the validation split before and after
     * @param quantization how the tuned weights were quantized
     */
    public record TunedEncoder(String file, String sha256, int layers, int steps, int pairsPerStep, double learningRate,
            double headLearningRate, long seed, List<Double> validationAccuracy, String quantization) {}

    /** This metadata naming the tuned encoder graph the head was trained on. */
    public RankerMetadata withTunedEncoder(TunedEncoder tuned) {
        return new RankerMetadata(encoder, pooling, maxTokens, truncation, featureSchema, featureNames, dimensions, objective, margin, minLengthDifference, training,
                calibration, tokenizer, data, evaluation, tuned);
    }

    /** This metadata with evaluation figures added. */
    public RankerMetadata withEvaluation(List<SplitFigures> figures) {
        return new RankerMetadata(encoder, pooling, maxTokens, truncation, featureSchema, featureNames, dimensions, objective, margin, minLengthDifference, training,
                calibration, tokenizer, data, List.copyOf(figures), tunedEncoder);
    }

    /**
     * The encoder this head was trained on.
     *
     * @throws IllegalStateException when this build knows no encoder by that name ({@link #incompatibility()} says so first)
     */
    public EncoderSpec encoderSpec() {
        EncoderSpec spec = EncoderSpec.named(encoder);
        if (spec == null) {
            throw new IllegalStateException("no encoder named " + encoder);
        }
        return spec;
    }

    /**
     * Why a head with this metadata cannot serve in this build, or null when it can: it must name an
     * encoder this build knows, read that encoder's pooling and width, and cut texts as it does.
     */
    String incompatibility() {
        EncoderSpec spec = EncoderSpec.named(encoder);
        if (spec == null) {
            return "encoder " + encoder + " (expected one of: "
                    + String.join(", ", Arrays.stream(EncoderSpec.values()).map(EncoderSpec::displayName).toList()) + ")";
        }
        if (!spec.pooling().description.equals(pooling)) {
            return "pooling " + pooling + " (expected with " + spec.id() + ": " + spec.pooling().description + ")";
        }
        if (!SentenceEncoder.TRUNCATION.equals(truncation)) {
            return "truncation " + truncation + " (expected: " + SentenceEncoder.TRUNCATION + ")";
        }
        if (!RequestFeatures.SCHEMA_VERSION.equals(featureSchema) || !RequestFeatures.NAMES.equals(featureNames)) {
            return "features " + featureSchema + " " + featureNames + " (expected: " + RequestFeatures.SCHEMA_VERSION + " "
                    + RequestFeatures.NAMES + ")";
        }
        if (dimensions != spec.dimensions()) {
            return dimensions + " dimensions (expected with " + spec.id() + ": " + spec.dimensions() + ")";
        }
        if (maxTokens < 2 || maxTokens > EncoderSpec.MAX_POSITIONS) {
            return "maxTokens " + maxTokens + " (expected: 2 to " + EncoderSpec.MAX_POSITIONS + ")";
        }
        return null;
    }
}
