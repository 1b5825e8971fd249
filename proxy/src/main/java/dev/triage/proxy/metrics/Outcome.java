package dev.triage.proxy.metrics;

import java.util.Locale;

/** How a scheduled request ended, as metrics and the request log label it. */
public enum Outcome {
    /** The backend's response reached the client (a 4xx of the backend's included). */
    OK,
    /** The backend was unreachable, broke off, or answered 5xx. */
    UPSTREAM_ERROR,
    /** The backend stayed silent past the upstream timeout. */
    TIMEOUT,
    /** The client disconnected before its response was complete. */
    CLIENT_GONE,
    /** Triage refused it: a malformed or oversized body, a full queue, a queue timeout, shutdown. */
    REJECTED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
