package dev.triage.model.ranker;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.OnnxSessions;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.classifier.ModelLoadException;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A trained ranking head in ONNX form with its {@link RankerMetadata}: sentence embeddings and
 * request features in, scores and calibrated estimates out. The graph's contract — inputs
 * {@value #INPUT} of shape [N, 384] and {@value #FEATURES} of shape [N, 25] ({@link RequestFeatures},
 * standardized inside the graph), output {@value #SCORE} of shape [N, 1], higher for a longer
 * expected answer — is fixed here and written by the trainer's exporter. The score is the head's, or
 * that of trees stacked on the head's score and the raw features. {@link RankerEstimator} puts the encoder in
 * front of it; training and evaluation feed it cached embeddings. Thread-safe.
 */
public final class RankerModel implements AutoCloseable {

    public static final String INPUT = "embedding";
    public static final String FEATURES = "features";
    public static final String SCORE = "score";
    /** The head's own score, before the trees stacked on it where it has them; not read when serving. */
    public static final String HEAD_SCORE = "head_score";

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final RankerMetadata metadata;
    private final Set<String> outputs = Set.of(SCORE);

    private RankerModel(OrtEnvironment environment, OrtSession session, RankerMetadata metadata) {
        this.environment = environment;
        this.session = session;
        this.metadata = metadata;
    }

    /**
     * Loads the head at {@code onnxFile} and its metadata at the same path with {@code .json} in
     * place of {@code .onnx}.
     *
     * @throws ModelLoadException when either file is missing or unusable
     */
    public static RankerModel load(Path onnxFile) {
        return ModelFiles.loadFile(RankerEstimator.NAME, onnxFile, RankerModel::fromBytes);
    }

    /**
     * Loads the head shipped in this module's resources ({@value RankerEstimator#DEFAULT_MODEL_RESOURCE}).
     *
     * @throws ModelLoadException when the resource is missing or unusable (a broken build)
     */
    public static RankerModel loadDefault() {
        return ModelFiles.loadResource(RankerEstimator.NAME, RankerEstimator.DEFAULT_MODEL_RESOURCE, RankerModel::fromBytes);
    }

    /**
     * A head from its ONNX model and metadata JSON; {@code location} names it in errors.
     *
     * @throws ModelLoadException when either is unusable or the head was trained for another encoder
     */
    public static RankerModel fromBytes(String location, byte[] onnxModel, byte[] metadataJson) {
        RankerMetadata metadata = ModelFiles.readMetadata(RankerEstimator.NAME, location, metadataJson, RankerMetadata.class);
        if (metadata.calibration() == null) {
            throw new ModelLoadException(RankerEstimator.NAME, location, "metadata has no calibration (expected: score → tokens knots)",
                    null);
        }
        String incompatibility = metadata.incompatibility();
        if (incompatibility != null) {
            throw new ModelLoadException(RankerEstimator.NAME, location, "trained for " + incompatibility, null);
        }
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        OrtSession session;
        try {
            session = OnnxSessions.singleThreaded(environment, onnxModel);
        } catch (OrtException | RuntimeException e) {
            throw new ModelLoadException(RankerEstimator.NAME, location, "not a usable ONNX ranking head: " + e.getMessage(), e);
        }
        RankerModel model = new RankerModel(environment, session, metadata);
        try {
            model.checkContract();
        } catch (OrtException | RuntimeException e) {
            model.close();
            throw new ModelLoadException(RankerEstimator.NAME, location, "not a usable ONNX ranking head: " + e.getMessage(), e);
        }
        return model;
    }

    private void checkContract() throws OrtException {
        OnnxSessions.requireContract(session, List.of(new OnnxSessions.Input(INPUT, metadata.dimensions()),
                new OnnxSessions.Input(FEATURES, RequestFeatures.COUNT)), SCORE);
        float[] score = scores(new float[][] {new float[metadata.dimensions()]}, new float[][] {RequestFeatures.of(new Prompt(""))});
        if (!Float.isFinite(score[0])) {
            throw new IllegalArgumentException("the zero embedding scores " + score[0] + " (expected: a finite score)");
        }
    }

    public RankerMetadata metadata() {
        return metadata;
    }

    /**
     * The head's score of each prompt from its embedding and its {@link RequestFeatures}, in one ONNX
     * Runtime call; higher means a longer expected answer.
     */
    public float[] scores(float[][] embeddings, float[][] features) {
        int rows = embeddings.length;
        if (features.length != rows) {
            throw new IllegalArgumentException(rows + " embeddings and " + features.length + " feature rows (expected: as many)");
        }
        if (rows == 0) {
            return new float[0];
        }
        float[] flatEmbeddings = flat(embeddings, metadata.dimensions(), "embedding");
        float[] flatFeatures = flat(features, RequestFeatures.COUNT, "feature row");
        try (OnnxTensor input = OnnxTensor.createTensor(environment, FloatBuffer.wrap(flatEmbeddings),
                        new long[] {rows, metadata.dimensions()});
                OnnxTensor featureInput = OnnxTensor.createTensor(environment, FloatBuffer.wrap(flatFeatures),
                        new long[] {rows, RequestFeatures.COUNT});
                OrtSession.Result result = session.run(Map.of(INPUT, input, FEATURES, featureInput), outputs)) {
            return OnnxSessions.scores(result, rows);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed to score " + rows + " prompts", e);
        }
    }

    private static float[] flat(float[][] rows, int columns, String what) {
        float[] flat = new float[rows.length * columns];
        for (int r = 0; r < rows.length; r++) {
            if (rows[r].length != columns) {
                throw new IllegalArgumentException(what + " " + r + ": " + rows[r].length + " values (expected: " + columns + ")");
            }
            System.arraycopy(rows[r], 0, flat, r * columns, columns);
        }
        return flat;
    }

    /** The calibrated estimate of each prompt, from its embedding and its {@link RequestFeatures}. */
    public List<Estimate> estimates(float[][] embeddings, float[][] features) {
        return metadata.calibration().estimates(scores(embeddings, features));
    }

    @Override
    public void close() {
        OnnxSessions.close(session);
    }
}
