package dev.triage.proxy.server;

import java.util.Locale;

/** What a scheduled route carries: each kind has its own backend, body limit and way of sizing a job. */
public enum RouteKind {
    CHAT,
    AUDIO;

    /** Lower-case name, as in metrics labels. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
