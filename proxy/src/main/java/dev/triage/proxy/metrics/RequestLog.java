package dev.triage.proxy.metrics;

import dev.triage.proxy.concurrent.BoundedWorker;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One structured line per scheduled request at info, on the logger {@code triage.requests}:
 * {@code id=... route=... kind=... class=... estimate=... actual=... queue_ms=... total_ms=...
 * status=... outcome=...}. Prompts and audio are never logged.
 *
 * <p>The line is made on the request's event loop and written on a thread of its own, since a log
 * backend formats and writes synchronously; when the writer falls {@value #WAITING} lines behind, a
 * line is dropped and counted ({@link #dropped}).
 */
public final class RequestLog implements RequestObserver, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("triage.requests");

    /** Lines that may wait for the writer; beyond, one is dropped and counted. */
    static final int WAITING = 4096;

    private final BoundedWorker writer = new BoundedWorker("triage-request-log", WAITING);
    private final LongAdder dropped = new LongAdder();

    @Override
    public void finished(RequestRecord r) {
        if (!log.isInfoEnabled()) {
            return;
        }
        String line = line(r);
        if (!writer.offer(() -> log.info(line))) {
            dropped.increment();
        }
    }

    /** Lines not written because the writer was behind or closed. */
    public long dropped() {
        return dropped.sum();
    }

    static String line(RequestRecord r) {
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
        return line.toString();
    }

    /** Milliseconds to one decimal, in integer arithmetic: this runs on the event loop for every request. */
    static StringBuilder appendMillis(StringBuilder line, long nanos) {
        long tenths = Math.round(nanos / 1e5);
        return line.append(tenths / 10).append('.').append(tenths % 10);
    }

    /** Writes the lines that wait, for up to a few seconds, and stops the writer. */
    @Override
    public void close() {
        if (!writer.close(Duration.ofSeconds(5))) {
            log.warn("the request log was closed with lines still waiting");
        }
    }
}
