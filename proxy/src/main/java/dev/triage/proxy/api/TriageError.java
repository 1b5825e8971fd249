package dev.triage.proxy.api;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Every error Triage itself answers with, and the HTTP status, OpenAI error type and code it maps to,
 * and whether a client should retry it. Errors from the backend are not here: they pass through unchanged.
 */
public enum TriageError {
    INVALID_REQUEST(HttpResponseStatus.BAD_REQUEST, "invalid_request_error", "invalid_request", false),
    BODY_TOO_LARGE(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "invalid_request_error", "request_too_large", false),
    UNAUTHORIZED(HttpResponseStatus.UNAUTHORIZED, "authentication_error", "invalid_admin_token", false),
    FORBIDDEN(HttpResponseStatus.FORBIDDEN, "permission_error", "admin_local_only", false),
    ADMIN_CROSS_ORIGIN(HttpResponseStatus.FORBIDDEN, "permission_error", "admin_cross_origin", false),
    NO_MODEL(HttpResponseStatus.CONFLICT, "invalid_request_error", "no_model", false),
    MODEL_INVALID(HttpResponseStatus.UNPROCESSABLE_ENTITY, "invalid_request_error", "invalid_model", false),
    REQUEST_TIMEOUT(HttpResponseStatus.REQUEST_TIMEOUT, "invalid_request_error", "request_timeout", false),
    NOT_FOUND(HttpResponseStatus.NOT_FOUND, "invalid_request_error", "not_found", false),
    MODEL_NOT_SERVED(HttpResponseStatus.NOT_FOUND, "invalid_request_error", "model_not_found", false),
    METHOD_NOT_ALLOWED(HttpResponseStatus.METHOD_NOT_ALLOWED, "invalid_request_error", "method_not_allowed", false),
    HTTP_VERSION_NOT_SUPPORTED(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "invalid_request_error",
            "http_version_not_supported", false),
    QUEUE_FULL(HttpResponseStatus.TOO_MANY_REQUESTS, "rate_limit_error", "queue_full", true),
    BACKEND_UNREACHABLE(HttpResponseStatus.BAD_GATEWAY, "server_error", "backend_unreachable", true),
    BACKEND_BROKE_OFF(HttpResponseStatus.BAD_GATEWAY, "server_error", "backend_error", true),
    SHUTTING_DOWN(HttpResponseStatus.SERVICE_UNAVAILABLE, "server_error", "shutting_down", true),
    TOO_MANY_CONNECTIONS(HttpResponseStatus.SERVICE_UNAVAILABLE, "server_error", "too_many_connections", true),
    NOT_READY(HttpResponseStatus.SERVICE_UNAVAILABLE, "server_error", "not_ready", true),
    // A timeout has already spent the wait the operator allows; a retry would start it over at the back of the queue.
    UPSTREAM_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT, "server_error", "upstream_timeout", false),
    QUEUE_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT, "server_error", "queue_timeout", false),
    // The estimator failed on this request's body: the same body fails again.
    INTERNAL(HttpResponseStatus.INTERNAL_SERVER_ERROR, "server_error", "internal_error", false);

    private final HttpResponseStatus status;
    private final String type;
    private final String code;
    private final boolean retryable;

    TriageError(HttpResponseStatus status, String type, String code, boolean retryable) {
        this.status = status;
        this.type = type;
        this.code = code;
        this.retryable = retryable;
    }

    public HttpResponseStatus status() {
        return status;
    }

    /** OpenAI's {@code error.type}. */
    public String type() {
        return type;
    }

    /** OpenAI's {@code error.code}: a stable, machine-readable name. */
    public String code() {
        return code;
    }

    /**
     * Whether the same request, sent again, may succeed. OpenAI's SDKs retry 408, 409, 429 and every
     * 5xx by default; for an error that is not retryable Triage answers {@code x-should-retry: false},
     * which they honour.
     */
    public boolean retryable() {
        return retryable;
    }
}
