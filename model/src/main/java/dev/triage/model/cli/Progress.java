package dev.triage.model.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * How far a long command has got, and how long it has left, for the person waiting on it: a bar
 * redrawn in place when standard output is a terminal (the scripts say so with
 * {@code -Dtriage.terminal=true}), else one plain line at every tenth of the work, so that a log
 * stays readable. The time left is the elapsed time scaled by the work left; before any step ends it
 * is the caller's expectation, if it gave one. Steps may end on several threads.
 *
 * <pre>{@code
 * Progress progress = Progress.start("encoding prompts", prompts.size(), Duration.ofMinutes(4));
 * for (String prompt : prompts) {
 *     encode(prompt);
 *     progress.step();
 * }
 * progress.done();
 * }</pre>
 */
public final class Progress {

    private static final int BAR_WIDTH = 30;
    private static final long REDRAW_NANOS = 250_000_000L;

    private final PrintStream out;
    private final boolean terminal;
    private final LongSupplier nanoTime;
    private final String what;
    private final long total;
    private final long startNanos;
    private long completed;
    private long lastDrawNanos;
    private int lastTenth;

    Progress(PrintStream out, boolean terminal, LongSupplier nanoTime, String what, long total, Duration expected) {
        this.out = out;
        this.terminal = terminal;
        this.nanoTime = nanoTime;
        this.what = what;
        this.total = total;
        this.startNanos = nanoTime.getAsLong();
        this.lastDrawNanos = startNanos - REDRAW_NANOS;
        out.printf(Locale.ROOT, "%s: %,d to do%s%n", what, total, expected == null ? "" : ", about " + format(expected));
    }

    /** Progress on standard output, as a bar when the scripts say it is a terminal. */
    public static Progress start(String what, long total, Duration expected) {
        return new Progress(System.out, Boolean.getBoolean("triage.terminal"), System::nanoTime, what, total, expected);
    }

    /** One more piece of the work is done. */
    public synchronized void step() {
        completed++;
        long now = nanoTime.getAsLong();
        if (terminal) {
            if (now - lastDrawNanos >= REDRAW_NANOS || completed == total) {
                lastDrawNanos = now;
                int filled = (int) (BAR_WIDTH * completed / Math.max(1, total));
                // Spaces at the end wipe what a longer line before left behind.
                out.printf(Locale.ROOT, "\r[%s%s] %3d%% %,d/%,d %s%s    ", "#".repeat(filled), ".".repeat(BAR_WIDTH - filled),
                        percent(), completed, total, what, left(now));
                out.flush();
            }
            return;
        }
        int tenth = (int) (10 * completed / Math.max(1, total));
        if (tenth > lastTenth && completed < total) {
            lastTenth = tenth;
            out.printf(Locale.ROOT, "%s: %d%% (%,d of %,d)%s%n", what, percent(), completed, total, left(now));
        }
    }

    /** The work is over: ends the bar's line and says how long it all took. */
    public synchronized void done() {
        if (terminal) {
            out.println();
        }
        out.printf(Locale.ROOT, "%s: done, %,d in %s%n", what, completed, format(Duration.ofNanos(nanoTime.getAsLong() - startNanos)));
    }

    private int percent() {
        return (int) (100 * completed / Math.max(1, total));
    }

    private String left(long now) {
        if (completed == 0 || completed >= total) {
            return "";
        }
        double perStep = (now - startNanos) / (double) completed;
        return ", about " + format(Duration.ofNanos((long) (perStep * (total - completed)))) + " left";
    }

    /** {@code 45 s}, {@code 3 min 20 s}, {@code 1 h 5 min}. */
    static String format(Duration duration) {
        long seconds = Math.max(0, Math.round(duration.toMillis() / 1000.0));
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min" + (seconds % 60 == 0 ? "" : " " + seconds % 60 + " s");
        }
        return seconds / 3600 + " h" + (seconds % 3600 / 60 == 0 ? "" : " " + seconds % 3600 / 60 + " min");
    }
}
