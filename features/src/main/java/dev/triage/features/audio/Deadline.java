package dev.triage.features.audio;

import java.time.Duration;

/**
 * The time one reader may spend on one file. Every reader makes a single pass over the bytes present,
 * so its time is bounded by the upload's size (under 0.2 s for 25 MB of the worst inputs known); the
 * deadline is the backstop for the input nobody has thought of yet: past it the file is unreadable
 * and gets the size estimate. Readers call {@link #step()} once per loop iteration; the clock is read
 * on every {@value #STEPS_PER_CLOCK_READ}th call only, so the check costs next to nothing.
 *
 * <p>Not thread-safe: one deadline per read.
 */
final class Deadline {

    /** What a file may cost when the caller sets no budget. */
    static final Duration PER_FILE = Duration.ofSeconds(1);

    private static final int STEPS_PER_CLOCK_READ = 4096;

    private final Duration budget;
    private final long deadlineNanos;
    private int steps;

    private Deadline(Duration budget) {
        this.budget = budget;
        this.deadlineNanos = System.nanoTime() + budget.toNanos();
    }

    /** A deadline {@code budget} from now. */
    static Deadline after(Duration budget) {
        return new Deadline(budget);
    }

    /** Counts one step of a reader's loop. */
    void step() throws UnreadableAudioException {
        if (++steps % STEPS_PER_CLOCK_READ == 0 && System.nanoTime() - deadlineNanos > 0) {
            throw new UnreadableAudioException("reading took longer than " + budget.toMillis() + " ms");
        }
    }
}
