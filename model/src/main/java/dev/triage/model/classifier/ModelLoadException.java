package dev.triage.model.classifier;

/**
 * A classifier model that cannot be used: missing, unreadable, not a valid ONNX model, or trained
 * for other features or classes than this build computes. The message names the model's location
 * and the reason, e.g. {@code classifier model /etc/triage/classifier.onnx: no such file}.
 */
public final class ModelLoadException extends RuntimeException {

    private final String location;

    public ModelLoadException(String location, String reason) {
        this(location, reason, null);
    }

    public ModelLoadException(String location, String reason, Throwable cause) {
        super("classifier model " + location + ": " + reason, cause);
        this.location = location;
    }

    /** The file path, or {@code classpath:...} for the shipped model. */
    public String location() {
        return location;
    }
}
