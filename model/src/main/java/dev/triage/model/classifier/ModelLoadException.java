package dev.triage.model.classifier;

/**
 * A model file that cannot be used — the classifier's, the lexical trees' or the ranker's: missing, unreadable, not a
 * valid ONNX model, or trained for other inputs than this build computes. The message names the
 * estimator, the model's location and the reason, e.g.
 * {@code classifier model /etc/triage/classifier.onnx: no such file}.
 */
public final class ModelLoadException extends RuntimeException {

    private final String location;

    /** A classifier model's failure. */
    public ModelLoadException(String location, String reason) {
        this(location, reason, null);
    }

    /** A classifier model's failure, with its cause. */
    public ModelLoadException(String location, String reason, Throwable cause) {
        this("classifier", location, reason, cause);
    }

    /**
     * @param estimator the estimator whose model failed ({@code classifier}, {@code lexical}, {@code ranker})
     * @param location the file path, or {@code classpath:...}
     * @param reason what is wrong with it
     * @param cause the underlying error, or null
     */
    public ModelLoadException(String estimator, String location, String reason, Throwable cause) {
        super(estimator + " model " + location + ": " + reason, cause);
        this.location = location;
    }

    /** The file path, or {@code classpath:...} for the shipped model. */
    public String location() {
        return location;
    }
}
