package dev.triage.proxy.scheduler;

/**
 * Monotonic time in nanoseconds. The live proxy runs the scheduler on {@link #system()}; tests and
 * the simulator run the very same code on a clock they advance themselves.
 */
@FunctionalInterface
public interface Clock {

    long nanoTime();

    static Clock system() {
        return System::nanoTime;
    }
}
