package dev.triage.proxy.sizing;

import dev.triage.proxy.api.TriageError;

/**
 * Why an audio upload is refused before it reaches the backend, and the error Triage answers with.
 * Anything else about the upload (an unknown or broken audio container, a missing model) is the
 * backend's to judge: such uploads are forwarded.
 */
public enum AudioUploadProblem {
    NOT_MULTIPART(TriageError.INVALID_REQUEST, null, "expected a multipart/form-data body"),
    MALFORMED_MULTIPART(TriageError.INVALID_REQUEST, null, "the multipart/form-data body is malformed"),
    MISSING_FILE(TriageError.INVALID_REQUEST, "file", "the form has no 'file' part"),
    INVALID_PRIORITY(TriageError.INVALID_REQUEST, "priority", "priority must be an integer (lower is sooner)"),
    TOO_LARGE(TriageError.BODY_TOO_LARGE, "file", "the upload is larger than the audio body limit");

    private final TriageError error;
    private final String param;
    private final String message;

    AudioUploadProblem(TriageError error, String param, String message) {
        this.error = error;
        this.param = param;
        this.message = message;
    }

    /** The error Triage answers with. */
    public TriageError error() {
        return error;
    }

    /** The HTTP status to answer with. */
    public int status() {
        return error.status().code();
    }

    /** OpenAI's {@code error.param}: the form field at fault, or null. */
    public String param() {
        return param;
    }

    /** The default {@code error.message}; {@link AudioUploadException#getMessage()} adds details. */
    public String message() {
        return message;
    }
}
