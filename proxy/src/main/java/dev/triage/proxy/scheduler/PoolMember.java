package dev.triage.proxy.scheduler;

import java.util.function.DoubleSupplier;

/**
 * A backend behind a queue, as the queue binds jobs to it.
 *
 * @param name its label in metrics and logs
 * @param slots how many jobs it runs at once
 * @param expectedSeconds what a typical job is expected to take there now (its learned service time):
 *     of the backends with a free slot, the one with the least takes the next job
 */
public record PoolMember(String name, int slots, DoubleSupplier expectedSeconds) {

    public PoolMember {
        if (slots < 1) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= 1)");
        }
    }

    /** The one backend of a queue that has no other. */
    public static PoolMember only(String name, int slots) {
        return new PoolMember(name, slots, () -> 0);
    }
}
