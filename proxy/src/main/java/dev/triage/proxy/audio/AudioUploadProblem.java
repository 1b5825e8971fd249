package dev.triage.proxy.audio;

/**
 * Why an audio upload is refused before it reaches the backend, with the HTTP status and the
 * OpenAI-style error fields Triage answers with. Anything else about the upload (an unknown or broken
 * audio container, a missing model) is the backend's to judge: such uploads are forwarded.
 */
public enum AudioUploadProblem {
    NOT_MULTIPART(400, null, "expected a multipart/form-data body"),
    MALFORMED_MULTIPART(400, null, "the multipart/form-data body does not match its boundary"),
    MISSING_FILE(400, "file", "the form has no 'file' part"),
    TOO_LARGE(413, "file", "the upload is larger than the audio body limit");

    private final int status;
    private final String param;
    private final String message;

    AudioUploadProblem(int status, String param, String message) {
        this.status = status;
        this.param = param;
        this.message = message;
    }

    /** The HTTP status to answer with. */
    public int status() {
        return status;
    }

    /** OpenAI's {@code error.type} for it. */
    public String errorType() {
        return "invalid_request_error";
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
