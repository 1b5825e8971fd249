package dev.triage.bench.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a fault-injection run did and found: each kind's operations and what they saw, and the
 * invariants checked at the end (slots and queue back to 0, no leak, no stack trace, no prompt in
 * the log, bodies forwarded byte for byte, file descriptors and threads flat, memory bounded, a clean
 * exit).
 *
 * @param start Triage's process once it listened; {@code warm} once a tenth of the operations had
 *     run (its threads and pools started); {@code peak} the largest figures seen during the run;
 *     {@code end} after the run, once Triage was idle and its garbage collected
 * @param settledAfter how long Triage took to come back to idle after the last operation
 * @param servedAfter requests answered whole after the run, of {@link ChaosRun#CHECKS_AFTER}
 * @param exitStatus Triage's exit status on SIGTERM; -1 when it had to be killed
 */
record ChaosReport(ChaosSettings settings, Duration took, List<KindTally.Summary> kinds, ForwardingLedger.Tally forwarding,
        LogScan.Tally log, QueueState before, QueueState after, Duration settledAfter, ProcessSample start, ProcessSample warm,
        ProcessSample peak, ProcessSample end, int servedAfter, long backendFaults, long keepAliveClosures, int exitStatus,
        Map<String, List<String>> examples) {

    /** File descriptors Triage may hold after a run beyond those it held once warm: sockets closing. */
    static final long FD_SLACK = 16;
    /** Threads Triage may have after a run beyond those it had once warm. */
    static final long THREAD_SLACK = 4;
    /** The most resident memory Triage may use at any moment of a run (with {@code -Xmx256m}). */
    static final long RSS_BOUND = 1L << 30;

    /** Operations that saw Triage do what it must not, over every kind. */
    long unexpected() {
        return kinds.stream().mapToLong(KindTally.Summary::unexpected).sum();
    }

    long ops() {
        return kinds.stream().mapToLong(KindTally.Summary::ops).sum();
    }

    /** The invariants that did not hold, each in a line; empty when all did. */
    List<String> broken() {
        List<String> broken = new ArrayList<>();
        if (!after.idle()) {
            broken.add("not idle after the run: " + after.busySlots() + " busy slots, " + after.waiting() + " waiting");
        }
        check(broken, log.leaks(), "LEAK reports in the log");
        check(broken, log.stackTraces(), "stack traces in the log");
        check(broken, log.prompts(), "log lines with a prompt's text");
        check(broken, forwarding.altered(), "request bodies altered on the way to the backend");
        check(broken, forwarding.duplicated(), "requests forwarded twice");
        check(broken, forwarding.leaked(), "requests forwarded that Triage had to refuse");
        if (servedAfter < ChaosRun.CHECKS_AFTER) {
            broken.add("after the run, only " + servedAfter + " of " + ChaosRun.CHECKS_AFTER + " requests answered whole");
        }
        if (warm != null && end != null) {
            if (end.openFiles() > warm.openFiles() + FD_SLACK) {
                broken.add("open files grew from " + warm.openFiles() + " to " + end.openFiles());
            }
            if (end.threads() > warm.threads() + THREAD_SLACK) {
                broken.add("threads grew from " + warm.threads() + " to " + end.threads());
            }
        }
        if (peak != null && peak.rssBytes() > RSS_BOUND) {
            broken.add("resident memory reached " + peak.rssMegabytes() + " MB");
        }
        if (exitStatus != 0) {
            broken.add("exit status " + exitStatus + " on SIGTERM");
        }
        return broken;
    }

    private static void check(List<String> broken, long count, String what) {
        if (count > 0) {
            broken.add(count + " " + what);
        }
    }

    /** The report as Markdown: the invariants, then each kind's accounts. */
    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%,d operations (seed %d, %d clients, --max-concurrency %d, --upstream-timeout %d ms) "
                + "in %.0f s; %,d saw Triage do what it must not.%n%n", ops(), settings.seed(), settings.clients(),
                settings.maxConcurrency(), settings.upstreamTimeout().toMillis(), took.toMillis() / 1e3, unexpected()));
        out.append("| invariant | before | after |\n|---|---|---|\n");
        row(out, "busy slots", before.busySlots(), after.busySlots());
        row(out, "waiting requests", before.waiting(), after.waiting());
        row(out, "open files (start, warm → end)", start == null ? "-" : start.openFiles() + ", " + warm.openFiles(),
                end == null ? "-" : end.openFiles());
        row(out, "threads (start, warm → end)", start == null ? "-" : start.threads() + ", " + warm.threads(),
                end == null ? "-" : end.threads());
        row(out, "resident memory, MB (start → peak, end)", start == null ? "-" : start.rssMegabytes(),
                peak == null ? "-" : peak.rssMegabytes() + ", " + end.rssMegabytes());
        row(out, "LEAK lines", 0, log.leaks());
        row(out, "stack traces in the log", 0, log.stackTraces());
        row(out, "log lines with a prompt", 0, log.prompts());
        row(out, "bodies checked byte for byte / altered", "-", forwarding.checked() + " / " + forwarding.altered());
        row(out, "forwarded twice / forwarded though refused", "-", forwarding.duplicated() + " / " + forwarding.leaked());
        if (settings.pausesStreams()) {
            row(out, "paused streams resumed (continuations forwarded)", "-", forwarding.resumed());
        }
        row(out, "answered whole after the run", "-", servedAfter + " of " + ChaosRun.CHECKS_AFTER);
        row(out, "exit status on SIGTERM", "-", exitStatus);
        out.append(String.format(Locale.ROOT, "%nIdle again %d ms after the last operation. The backend struck %,d faults and "
                + "closed %,d idle keep-alive connections. The log: %,d lines, %,d at WARN or ERROR; request outcomes %s.%n",
                settledAfter.toMillis(), backendFaults, keepAliveClosures, log.lines(), log.warnings(), log.outcomes()));
        List<String> broken = broken();
        out.append(broken.isEmpty() ? "\nEvery invariant held.\n" : "\nBroken: " + String.join("; ", broken) + ".\n");
        out.append("\n| kind | family | ops | unexpected | slowest, ms | what they saw |\n|---|---|---|---|---|---|\n");
        for (KindTally.Summary kind : kinds) {
            StringBuilder seen = new StringBuilder();
            kind.seen().entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).forEach(e -> seen
                    .append(seen.isEmpty() ? "" : "; ").append(e.getValue()).append("× ").append(e.getKey().replace("|", "\\|")));
            out.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,d | %,d | %s |%n", kind.kind().label(), kind.kind().family(),
                    kind.ops(), kind.unexpected(), kind.slowestMillis(), seen));
        }
        if (!examples.isEmpty()) {
            out.append("\nFirst instances of each problem:\n\n");
            examples.forEach((what, instances) -> {
                out.append("- ").append(what).append(":\n");
                instances.forEach(instance -> out.append("  - `").append(ChatRequest.abbreviate(instance)).append("`\n"));
            });
        }
        return out.toString();
    }

    private static void row(StringBuilder out, String what, Object before, Object after) {
        out.append("| ").append(what).append(" | ").append(before).append(" | ").append(after).append(" |\n");
    }
}
