package dev.triage.proxy.metrics;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One structured line per scheduled request at info, on the logger {@code triage.requests}:
 * {@code id=... route=... kind=... class=... estimate=... actual=... queue_ms=... total_ms=...
 * status=... outcome=...}. Prompts and audio are never logged.
 */
public final class RequestLog implements RequestObserver {

    private static final Logger log = LoggerFactory.getLogger("triage.requests");

    @Override
    public void finished(RequestRecord r) {
        if (!log.isInfoEnabled()) {
            return;
        }
        StringBuilder line = new StringBuilder(160)
                .append("id=").append(r.id())
                .append(" route=").append(r.path())
                .append(" kind=").append(r.routeKind())
                .append(" class=").append(r.classLabel())
                .append(" estimate=").append(r.estimate() == null ? "-" : Math.round(r.estimate().expectedTokens()))
                .append(" actual=").append(r.actualTokens().isPresent() ? Long.toString(r.actualTokens().getAsLong()) : "-")
                .append(" priority=").append(r.priority())
                .append(" queue_ms=");
        if (r.queuedNanos() < 0) {
            line.append('-');
        } else {
            appendMillis(line, r.queuedNanos());
        }
        appendMillis(line.append(" total_ms="), r.totalNanos())
                .append(" status=").append(r.status() == 0 ? "-" : Integer.toString(r.status()))
                .append(" outcome=").append(r.outcome().label());
        if (r.reason() != null) {
            line.append(" reason=").append(r.reason());
        }
        if (r.starvationPromoted()) {
            line.append(" promoted=true");
        }
        log.info(line.toString());
    }

    /** Milliseconds to one decimal, in integer arithmetic: this runs on the event loop for every request. */
    static StringBuilder appendMillis(StringBuilder line, long nanos) {
        long tenths = Math.round(nanos / 1e5);
        return line.append(tenths / 10).append('.').append(tenths % 10);
    }
}
