package dev.triage.proxy.api;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Every error Triage itself answers with, and the HTTP status and OpenAI error type and code it maps
 * to. Errors from the backend are not here: they pass through unchanged.
 */
public enum TriageError {
    INVALID_REQUEST(HttpResponseStatus.BAD_REQUEST, "invalid_request_error", "invalid_request"),
    BODY_TOO_LARGE(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "invalid_request_error", "request_too_large"),
    UNAUTHORIZED(HttpResponseStatus.UNAUTHORIZED, "authentication_error", "invalid_admin_token"),
    FORBIDDEN(HttpResponseStatus.FORBIDDEN, "permission_error", "admin_local_only"),
    NO_MODEL(HttpResponseStatus.CONFLICT, "invalid_request_error", "no_model"),
    MODEL_INVALID(HttpResponseStatus.UNPROCESSABLE_ENTITY, "invalid_request_error", "invalid_model"),
    NOT_FOUND(HttpResponseStatus.NOT_FOUND, "invalid_request_error", "not_found"),
    METHOD_NOT_ALLOWED(HttpResponseStatus.METHOD_NOT_ALLOWED, "invalid_request_error", "method_not_allowed"),
    QUEUE_FULL(HttpResponseStatus.TOO_MANY_REQUESTS, "rate_limit_error", "queue_full"),
    BACKEND_UNREACHABLE(HttpResponseStatus.BAD_GATEWAY, "server_error", "backend_unreachable"),
    BACKEND_BROKE_OFF(HttpResponseStatus.BAD_GATEWAY, "server_error", "backend_error"),
    SHUTTING_DOWN(HttpResponseStatus.SERVICE_UNAVAILABLE, "server_error", "shutting_down"),
    NOT_READY(HttpResponseStatus.SERVICE_UNAVAILABLE, "server_error", "not_ready"),
    UPSTREAM_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT, "server_error", "upstream_timeout"),
    QUEUE_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT, "server_error", "queue_timeout"),
    INTERNAL(HttpResponseStatus.INTERNAL_SERVER_ERROR, "server_error", "internal_error");

    private final HttpResponseStatus status;
    private final String type;
    private final String code;

    TriageError(HttpResponseStatus status, String type, String code) {
        this.status = status;
        this.type = type;
        this.code = code;
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
}
