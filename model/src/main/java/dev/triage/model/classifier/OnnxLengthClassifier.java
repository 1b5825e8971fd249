package dev.triage.model.classifier;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.triage.features.LexicalFeatures;
import dev.triage.model.LengthClass;
import dev.triage.model.OnnxSessions;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A length classifier in ONNX form run by ONNX Runtime: feature rows in, class probabilities out.
 * The graph's contract — input {@value #INPUT} of shape [N, 19] floats, output
 * {@value #PROBABILITIES} of shape [N, 3] — is fixed here and written by the exporter. One session
 * serves every thread (ONNX Runtime's {@code run} is thread-safe); it runs single-threaded, since
 * one row of a few hundred small trees costs microseconds and a thread pool would only add
 * hand-offs.
 */
public final class OnnxLengthClassifier implements AutoCloseable {

    public static final String INPUT = "features";
    public static final String LABEL = "label";
    public static final String PROBABILITIES = "probabilities";

    private static final int CLASSES = LengthClass.values().length;

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final Set<String> outputs = Set.of(PROBABILITIES);

    private OnnxLengthClassifier(OrtEnvironment environment, OrtSession session) {
        this.environment = environment;
        this.session = session;
    }

    /**
     * Opens a model; an invalid graph is an {@link OrtException}, one that breaks the contract an
     * {@link IllegalArgumentException}. {@link ClassifierEstimator} is the usual way in; this is for
     * code that needs the raw probabilities (exporter tests).
     */
    public static OnnxLengthClassifier open(byte[] model) throws OrtException {
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        OrtSession session = OnnxSessions.singleThreaded(environment, model);
        try {
            OnnxSessions.requireContract(session, List.of(new OnnxSessions.Input(INPUT, LexicalFeatures.COUNT)), PROBABILITIES);
        } catch (RuntimeException | OrtException e) {
            session.close();
            throw e;
        }
        return new OnnxLengthClassifier(environment, session);
    }

    /**
     * Class probabilities (short, medium, long) of {@code rows} feature rows laid out one after the
     * other in {@code features}.
     */
    public float[][] probabilities(float[] features, int rows) throws OrtException {
        if (features.length != rows * LexicalFeatures.COUNT) {
            throw new IllegalArgumentException("features: " + features.length + " values for " + rows
                    + " rows (expected: " + rows * LexicalFeatures.COUNT + ")");
        }
        try (OnnxTensor input = OnnxTensor.createTensor(environment, FloatBuffer.wrap(features),
                        new long[] {rows, LexicalFeatures.COUNT});
                OrtSession.Result result = session.run(Map.of(INPUT, input), outputs)) {
            float[][] probabilities = (float[][]) result.get(0).getValue();
            if (probabilities.length != rows || (rows > 0 && probabilities[0].length != CLASSES)) {
                throw new IllegalStateException("model returned " + probabilities.length + " rows of "
                        + (rows > 0 ? probabilities[0].length : 0) + " (expected: " + rows + " of " + CLASSES + ")");
            }
            return probabilities;
        }
    }

    @Override
    public void close() {
        OnnxSessions.close(session);
    }
}
