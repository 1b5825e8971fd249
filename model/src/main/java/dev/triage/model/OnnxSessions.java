package dev.triage.model;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;

/** What every estimator that holds an ONNX Runtime session does with it alike. */
public final class OnnxSessions {

    private OnnxSessions() {}

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
