package dev.triage.model.classifier;

import ai.onnxruntime.OrtException;
import dev.triage.features.LexicalFeatures;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.LengthClass;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code classifier} estimator: Clairvoyant's 19 lexical features scored by a gradient-boosted
 * tree ensemble in ONNX Runtime. It reports expected tokens = Σ P(class) × mean answer tokens of
 * the class in the training data, so SJF, HRRN and the starvation timeout compare it with any
 * other estimator's tokens; the estimate also carries the most probable class and P(long).
 *
 * <p>A model is an ONNX file with its {@link ClassifierMetadata} beside it ({@code x.onnx} and
 * {@code x.json}). It is loaded once; {@link #estimate} is thread-safe and takes microseconds.
 *
 * <pre>{@code
 * JobEstimator<Prompt> estimator = ClassifierEstimator.loadDefault();           // or load(path)
 * }</pre>
 */
public final class ClassifierEstimator implements JobEstimator<Prompt> {

    public static final String NAME = "classifier";

    /** The shipped model, a class-path resource of this module; its metadata is {@code classifier.json}. */
    public static final String DEFAULT_MODEL_RESOURCE = "/models/classifier.onnx";

    private final OnnxLengthClassifier model;
    private final ClassifierMetadata metadata;
    private final double[] meanTokens;

    private ClassifierEstimator(OnnxLengthClassifier model, ClassifierMetadata metadata) {
        this.model = model;
        this.metadata = metadata;
        this.meanTokens = metadata.meanAnswerTokens().stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Loads the model at {@code onnxFile} and its metadata at the same path with {@code .json} in
     * place of {@code .onnx}.
     *
     * @throws ModelLoadException when either file is missing or unreadable, the model is not valid
     *     ONNX, or it was trained for other features or classes
     */
    public static ClassifierEstimator load(Path onnxFile) {
        return ModelFiles.loadFile(NAME, onnxFile, ClassifierEstimator::fromBytes);
    }

    /**
     * Loads the model shipped in this module's resources ({@value #DEFAULT_MODEL_RESOURCE}).
     *
     * @throws ModelLoadException when the resource is missing or unusable (a broken build)
     */
    public static ClassifierEstimator loadDefault() {
        return ModelFiles.loadResource(NAME, DEFAULT_MODEL_RESOURCE, ClassifierEstimator::fromBytes);
    }

    /**
     * A classifier from an ONNX model and its metadata JSON in memory (what training produces);
     * {@code location} names it in errors.
     *
     * @throws ModelLoadException when either is unusable
     */
    public static ClassifierEstimator fromBytes(String location, byte[] onnxModel, byte[] metadataJson) {
        ClassifierMetadata metadata = ModelFiles.readMetadata(NAME, location, metadataJson, ClassifierMetadata.class);
        String incompatibility = metadata.incompatibility();
        if (incompatibility != null) {
            throw new ModelLoadException(location, "trained for " + incompatibility);
        }
        OnnxLengthClassifier model;
        try {
            model = OnnxLengthClassifier.open(onnxModel);
        } catch (OrtException | RuntimeException e) {
            throw new ModelLoadException(location, "not a usable ONNX length classifier: " + e.getMessage(), e);
        }
        ClassifierEstimator estimator = new ClassifierEstimator(model, metadata);
        estimator.checkScoresSumToOne(location);
        return estimator;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        return estimateOf(score(LexicalFeatures.of(prompt), 1)[0]);
    }

    /** Scores the prompts in one ONNX Runtime call. */
    @Override
    public List<Estimate> estimateAll(List<Prompt> prompts) {
        int rows = prompts.size();
        if (rows == 0) {
            return List.of();
        }
        float[] features = new float[rows * LexicalFeatures.COUNT];
        float[] row = new float[LexicalFeatures.COUNT];
        for (int i = 0; i < rows; i++) {
            LexicalFeatures.extract(prompts.get(i).text(), row);
            System.arraycopy(row, 0, features, i * LexicalFeatures.COUNT, LexicalFeatures.COUNT);
        }
        List<Estimate> estimates = new ArrayList<>(rows);
        for (float[] probabilities : score(features, rows)) {
            estimates.add(estimateOf(probabilities));
        }
        return estimates;
    }

    private float[][] score(float[] features, int rows) {
        try {
            return model.probabilities(features, rows);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed to score " + rows + " prompts", e);
        }
    }

    private Estimate estimateOf(float[] probabilities) {
        double expectedTokens = 0;
        int mostLikely = 0;
        for (int c = 0; c < probabilities.length; c++) {
            expectedTokens += probabilities[c] * meanTokens[c];
            if (probabilities[c] > probabilities[mostLikely]) {
                mostLikely = c;
            }
        }
        return new Estimate(expectedTokens, LengthClass.values()[mostLikely], probabilities[LengthClass.LONG.ordinal()]);
    }

    public ClassifierMetadata metadata() {
        return metadata;
    }

    @Override
    public void close() {
        model.close();
    }

    /** A model that loads but does not output a distribution is as broken as one that does not load. */
    private void checkScoresSumToOne(String location) {
        float[] row = new float[LexicalFeatures.COUNT];
        LexicalFeatures.extract("", row);
        float[] probabilities;
        try {
            probabilities = model.probabilities(row, 1)[0];
        } catch (OrtException | RuntimeException e) {
            close();
            throw new ModelLoadException(location, "scoring a prompt failed: " + e.getMessage(), e);
        }
        double sum = 0;
        for (float p : probabilities) {
            sum += p;
        }
        if (!(Math.abs(sum - 1) < 1e-3)) {
            close();
            throw new ModelLoadException(location, "class probabilities sum to " + sum + " (expected: 1; not a softmax classifier?)");
        }
    }
}
