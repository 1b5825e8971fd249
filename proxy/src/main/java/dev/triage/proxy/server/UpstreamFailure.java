package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.upstream.UpstreamCall;

/**
 * A call the backend did not complete, as the client is answered and the request counted: one
 * mapping from each failing {@link UpstreamCall.Ending} to its error (and so its status) and
 * outcome, for scheduled and passed-through requests alike.
 */
enum UpstreamFailure {
    UNREACHABLE(TriageError.BACKEND_UNREACHABLE, Outcome.UPSTREAM_ERROR),
    TIMEOUT(TriageError.UPSTREAM_TIMEOUT, Outcome.TIMEOUT),
    BROKEN(TriageError.BACKEND_BROKE_OFF, Outcome.UPSTREAM_ERROR);

    private final TriageError error;
    private final Outcome outcome;

    UpstreamFailure(TriageError error, Outcome outcome) {
        this.error = error;
        this.outcome = outcome;
    }

    /** The failure an ending stands for; {@code OK} and {@code CANCELLED} are not failures. */
    static UpstreamFailure of(UpstreamCall.Ending ending) {
        return switch (ending) {
            case UNREACHABLE -> UNREACHABLE;
            case TIMEOUT -> TIMEOUT;
            case BROKEN -> BROKEN;
            case OK, CANCELLED -> throw new IllegalArgumentException(ending + " is not a failure");
        };
    }

    TriageError error() {
        return error;
    }

    Outcome outcome() {
        return outcome;
    }

    /** The error message the client reads. */
    String message(BackendConfig backend) {
        return switch (this) {
            case UNREACHABLE -> "the backend at " + backend.url() + " is unreachable";
            case TIMEOUT -> "the backend did not answer in time";
            case BROKEN -> "the backend closed the connection or sent a malformed response";
        };
    }
}
