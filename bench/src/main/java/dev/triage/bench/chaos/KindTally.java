package dev.triage.bench.chaos;

import java.util.Map;
import java.util.TreeMap;

/** What the operations of one kind saw: how many ran, how many saw what Triage must not do, and each account by count. */
final class KindTally {

    private final FaultKind kind;
    private final Map<String, Long> seen = new TreeMap<>();
    private long ops;
    private long unexpected;
    private long slowestMillis;

    KindTally(FaultKind kind) {
        this.kind = kind;
    }

    synchronized void add(Verdict verdict, long millis) {
        ops++;
        if (!verdict.expected()) {
            unexpected++;
        }
        seen.merge((verdict.expected() ? "" : "UNEXPECTED ") + verdict.seen(), 1L, Long::sum);
        slowestMillis = Math.max(slowestMillis, millis);
    }

    synchronized Summary summary() {
        return new Summary(kind, ops, unexpected, slowestMillis, Map.copyOf(seen));
    }

    /**
     * @param unexpected operations that saw Triage do what it must not
     * @param seen each account, with {@code UNEXPECTED} before those that are, by count
     */
    record Summary(FaultKind kind, long ops, long unexpected, long slowestMillis, Map<String, Long> seen) {}
}
