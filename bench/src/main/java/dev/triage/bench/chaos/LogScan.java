package dev.triage.bench.chaos;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads Triage's log as it is written, for what must never be there: Netty's {@code LEAK:} reports,
 * stack traces, and a client's prompt (each prompt of a run carries the run's canary word). It also
 * counts the request log's outcomes, which say how Triage saw each scheduled request end.
 */
final class LogScan {

    private static final Pattern STACK_FRAME = Pattern.compile("^\\s+at [\\w$.<>/]+\\(.*\\)\\s*$");
    /** How the request log's lines begin, after the time and level: its logger's short name. */
    private static final String REQUEST_LOG = " requests - ";
    private static final Pattern OUTCOME = Pattern.compile(" outcome=(\\w+)(?: reason=(\\w+))?");

    private final String canary;
    private final Examples examples;
    private final Map<String, Long> outcomes = new TreeMap<>();
    private long lines;
    private long leaks;
    private long stackTraces;
    private long prompts;
    private long warnings;
    private boolean inStackTrace;

    LogScan(String canary, Examples examples) {
        this.canary = canary;
        this.examples = examples;
    }

    synchronized void accept(String line) {
        lines++;
        if (line.contains("LEAK:")) {
            leaks++;
            examples.add("LEAK in the log", line);
        }
        boolean frame = STACK_FRAME.matcher(line).matches() || line.startsWith("Caused by: ");
        if (frame && !inStackTrace) {
            stackTraces++;
            examples.add("stack trace in the log", line.strip());
        }
        inStackTrace = frame;
        if (line.contains(canary)) {
            prompts++;
            examples.add("prompt text in the log", line);
        }
        if (line.contains("[WARN]") || line.contains("[ERROR]")) {
            warnings++;
            examples.add("warnings and errors in the log", line);
        }
        Matcher outcome = OUTCOME.matcher(line);
        if (line.contains(REQUEST_LOG) && outcome.find()) {
            String label = outcome.group(2) == null ? outcome.group(1) : outcome.group(1) + " (" + outcome.group(2) + ")";
            outcomes.merge(label, 1L, Long::sum);
        }
    }

    synchronized Tally tally() {
        return new Tally(lines, leaks, stackTraces, prompts, warnings, Map.copyOf(outcomes));
    }

    /**
     * @param stackTraces stack traces (a run of frame lines counts once)
     * @param prompts lines that carry a client's prompt text
     * @param warnings lines logged at WARN or ERROR
     * @param outcomes the request log's outcomes (with the reason, for refusals), by count
     */
    record Tally(long lines, long leaks, long stackTraces, long prompts, long warnings, Map<String, Long> outcomes) {}
}
