package dev.triage.model.lexical;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.OnnxSessions;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.classifier.ModelLoadException;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code lexical} estimator: everything a request says that costs microseconds to read
 * ({@link RequestFeatures}: the prompt's length, Clairvoyant's lexical features, the conversation's
 * shape) scored by a gradient-boosted tree ensemble trained to order prompts by answer length, in
 * ONNX Runtime. A strictly increasing calibration fitted on held-out prompts turns the score into
 * expected tokens, so two prompts the trees told apart never tie. Cheap enough for the network
 * threads, it is what an expensive estimator falls back on.
 *
 * <p>A model is an ONNX {@code TreeEnsembleRegressor} (input {@value #INPUT} [N, 25], output
 * {@value #SCORE} [N, 1]) with its {@link LexicalMetadata} beside it ({@code x.onnx} and
 * {@code x.json}). Thread-safe.
 *
 * <pre>{@code
 * JobEstimator<Prompt> lexical = LexicalEstimator.loadDefault();       // or load(Path.of("lexical.onnx"))
 * }</pre>
 */
public final class LexicalEstimator implements JobEstimator<Prompt> {

    public static final String NAME = "lexical";

    /** The shipped model, a class-path resource of this module; its metadata is {@code lexical.json}. */
    public static final String DEFAULT_MODEL_RESOURCE = "/models/lexical.onnx";

    public static final String INPUT = "features";
    public static final String SCORE = "score";

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final LexicalMetadata metadata;
    private final Set<String> outputs = Set.of(SCORE);

    private LexicalEstimator(OrtEnvironment environment, OrtSession session, LexicalMetadata metadata) {
        this.environment = environment;
        this.session = session;
        this.metadata = metadata;
    }

    /**
     * Loads the model at {@code onnxFile} and its metadata beside it ({@code .json} for {@code .onnx}).
     *
     * @throws ModelLoadException when either file is missing or unusable
     */
    public static LexicalEstimator load(Path onnxFile) {
        return ModelFiles.loadFile(NAME, onnxFile, LexicalEstimator::fromBytes);
    }

    /**
     * Loads the model shipped in this module's resources ({@value #DEFAULT_MODEL_RESOURCE}).
     *
     * @throws ModelLoadException when the resource is missing or unusable (a broken build)
     */
    public static LexicalEstimator loadDefault() {
        return ModelFiles.loadResource(NAME, DEFAULT_MODEL_RESOURCE, LexicalEstimator::fromBytes);
    }

    /**
     * A model from its ONNX bytes and metadata JSON; {@code location} names it in errors.
     *
     * @throws ModelLoadException when either is unusable or the model was trained for other features
     */
    public static LexicalEstimator fromBytes(String location, byte[] onnxModel, byte[] metadataJson) {
        LexicalMetadata metadata = ModelFiles.readMetadata(NAME, location, metadataJson, LexicalMetadata.class);
        String incompatibility = metadata.incompatibility();
        if (incompatibility != null) {
            throw new ModelLoadException(NAME, location, "trained for " + incompatibility, null);
        }
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        OrtSession session;
        try {
            session = OnnxSessions.singleThreaded(environment, onnxModel);
        } catch (OrtException | RuntimeException e) {
            throw new ModelLoadException(NAME, location, "not a usable ONNX tree ensemble: " + e.getMessage(), e);
        }
        LexicalEstimator estimator = new LexicalEstimator(environment, session, metadata);
        try {
            estimator.checkContract();
        } catch (OrtException | RuntimeException e) {
            estimator.close();
            throw new ModelLoadException(NAME, location, "not a usable ONNX tree ensemble: " + e.getMessage(), e);
        }
        return estimator;
    }

    private void checkContract() throws OrtException {
        OnnxSessions.requireContract(session, List.of(new OnnxSessions.Input(INPUT, RequestFeatures.COUNT)), SCORE);
        estimate(new Prompt(""));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        return estimateAll(List.of(prompt)).get(0);
    }

    /** Scores the prompts in one ONNX Runtime call. */
    @Override
    public List<Estimate> estimateAll(List<Prompt> prompts) {
        return metadata.calibration().estimates(scores(prompts));
    }

    /** The trees' score of each prompt, higher for a longer expected answer. */
    public float[] scores(List<Prompt> prompts) {
        int rows = prompts.size();
        if (rows == 0) {
            return new float[0];
        }
        float[] features = new float[rows * RequestFeatures.COUNT];
        for (int i = 0; i < rows; i++) {
            RequestFeatures.extract(prompts.get(i), features, i * RequestFeatures.COUNT);
        }
        return scores(features, rows);
    }

    /**
     * The trees' score of {@code rows} feature rows laid out one after the other (NaN is a missing
     * value), as the exported graph computes it: what parity with XGBoost is checked on.
     */
    public float[] scores(float[] features, int rows) {
        if (features.length != rows * RequestFeatures.COUNT) {
            throw new IllegalArgumentException("features: " + features.length + " values for " + rows + " rows (expected: "
                    + rows * RequestFeatures.COUNT + ")");
        }
        try (OnnxTensor input = OnnxTensor.createTensor(environment, FloatBuffer.wrap(features),
                        new long[] {rows, RequestFeatures.COUNT});
                OrtSession.Result result = session.run(Map.of(INPUT, input), outputs)) {
            return OnnxSessions.scores(result, rows);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed to score " + rows + " prompts", e);
        }
    }

    public LexicalMetadata metadata() {
        return metadata;
    }

    @Override
    public void close() {
        OnnxSessions.close(session);
    }
}
