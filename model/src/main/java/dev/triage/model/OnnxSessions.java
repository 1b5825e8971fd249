package dev.triage.model;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** What every estimator that holds an ONNX Runtime session does with it alike. */
public final class OnnxSessions {

    /** An input a model must read: rows of {@code columns} floats, shape [N, columns]. */
    public record Input(String name, int columns) {}

    private OnnxSessions() {}

    /**
     * Checks that {@code session} reads exactly {@code inputs}, each of its width, and writes {@code output}.
     *
     * @throws IllegalArgumentException naming what differs
     */
    public static void requireContract(OrtSession session, List<Input> inputs, String output) throws OrtException {
        Map<String, NodeInfo> found = session.getInputInfo();
        List<String> names = inputs.stream().map(Input::name).toList();
        if (session.getNumInputs() != inputs.size() || !found.keySet().containsAll(names)) {
            throw new IllegalArgumentException("inputs " + session.getInputNames() + " (expected: " + names + ")");
        }
        for (Input input : inputs) {
            long[] shape = ((TensorInfo) found.get(input.name()).getInfo()).getShape();
            if (shape.length != 2 || shape[1] != input.columns()) {
                throw new IllegalArgumentException(input.name() + " shape " + Arrays.toString(shape) + " (expected: [N, "
                        + input.columns() + "])");
            }
        }
        if (!session.getOutputNames().contains(output)) {
            throw new IllegalArgumentException("outputs " + session.getOutputNames() + " (expected: " + output + ")");
        }
    }

    /**
     * A session that runs on the calling thread alone: a tree ensemble or a small head costs
     * microseconds to a few hundred thousand multiply-adds, so a thread pool would cost more than it saves.
     */
    public static OrtSession singleThreaded(OrtEnvironment environment, byte[] model) throws OrtException {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            return environment.createSession(model, options);
        }
    }

    /** The first output of {@code result}: one float score per row. */
    public static float[] scores(OrtSession.Result result, int rows) {
        FloatBuffer scores = ((OnnxTensor) result.get(0)).getFloatBuffer();
        if (scores.remaining() != rows) {
            throw new IllegalStateException("model returned " + scores.remaining() + " scores for " + rows + " rows");
        }
        float[] out = new float[rows];
        scores.get(out);
        return out;
    }

    /** Closes {@code session}; a failure to close is a bug, not something a caller can handle. */
    public static void close(OrtSession session) {
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException("closing the ONNX Runtime session failed", e);
        }
    }
}
