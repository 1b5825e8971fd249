package dev.triage.bench.backend;

/**
 * Time as a {@link GenerationEngine} sees it: the current time, and tasks to run later. The replay
 * backend gives it its event loop's timers ({@link NettyTimers}); the simulator gives it a virtual
 * clock, so both run the very same timing model.
 */
public interface EngineTimers {

    long nanoTime();

    /** Runs {@code task} once, {@code delayNanos} from now, on the engine's one thread. */
    Timer schedule(Runnable task, long delayNanos);

    /** A scheduled task. */
    interface Timer {
        /** Stops the task if it has not run yet. */
        void cancel();
    }
}
