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
    /**
     * The backend was unreachable or broke off, or reported an error in the body of an answer it had
     * begun as a success: it gave no complete answer.
     */
    UPSTREAM_ERROR,
    /** The backend stayed silent past the upstream timeout. */
    TIMEOUT,
    /** The client disconnected before its response was complete. */
    CLIENT_GONE,
    /** Triage refused it: a malformed or oversized body, a full queue, a queue timeout, shutdown. */
    REJECTED;

    /**
     * The outcome of a request whose backend answered with {@code status} and was relayed whole;
     * {@code reportedError}: its body reported an error ({@link ResponseTokenCounter#reportedError}).
     */
    public static Outcome relayed(int status, boolean reportedError) {
        return status >= 500 ? BACKEND_5XX : status >= 400 ? BACKEND_4XX : reportedError ? UPSTREAM_ERROR : OK;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
