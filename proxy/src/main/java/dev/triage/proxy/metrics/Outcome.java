package dev.triage.proxy.metrics;

import java.util.Locale;

/** How a scheduled request ended, as metrics and the request log label it. */
public enum Outcome {
    /** The backend's response, a success (2xx or 3xx), reached the client. */
    OK,
    /** The backend refused the request (4xx); its answer reached the client. */
    BACKEND_4XX,
    /** The backend failed the request (5xx); its answer reached the client. */
    BACKEND_5XX,
    /** The backend was unreachable or broke off: it gave no complete answer. */
    UPSTREAM_ERROR,
    /** The backend stayed silent past the upstream timeout. */
    TIMEOUT,
    /** The client disconnected before its response was complete. */
    CLIENT_GONE,
    /** Triage refused it: a malformed or oversized body, a full queue, a queue timeout, shutdown. */
    REJECTED;

    /** The outcome of a request whose backend answered with {@code status} and was relayed whole. */
    public static Outcome relayed(int status) {
        return status >= 500 ? BACKEND_5XX : status >= 400 ? BACKEND_4XX : OK;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
