package dev.triage.proxy.sizing;

import dev.triage.proxy.api.TriageError;

/** A scheduled request that cannot be queued as sent: answered with {@link #error()} and never forwarded. */
public final class RequestRejectedException extends RuntimeException {

    private final TriageError error;
    private final String param;

    public RequestRejectedException(TriageError error, String message, String param) {
        super(message, null, false, false);
        this.error = error;
        this.param = param;
    }

    public TriageError error() {
        return error;
    }

    /** The request field at fault, or null. */
    public String param() {
        return param;
    }
}
