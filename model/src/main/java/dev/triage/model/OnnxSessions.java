package dev.triage.model;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/** What every estimator that holds an ONNX Runtime session does with it alike. */
public final class OnnxSessions {

    private OnnxSessions() {}

    /** Closes {@code session}; a failure to close is a bug, not something a caller can handle. */
    public static void close(OrtSession session) {
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException("closing the ONNX Runtime session failed", e);
        }
    }
}
