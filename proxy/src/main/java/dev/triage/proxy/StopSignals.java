package dev.triage.proxy;

import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * Runs the graceful stop on SIGTERM and SIGINT before the JVM begins to exit, rather than in a shutdown
 * hook: the JVM runs every hook at once, and ONNX Runtime's own hook releases its native environment
 * while the drain still estimates requests or loads a model with it, which crashes the process and
 * drops the requests in flight. The stop ends the process itself ({@link Runtime#halt}), so no hook
 * runs after it.
 */
final class StopSignals {

    private StopSignals() {}

    /**
     * Runs {@code stop} on a thread of its own at the first SIGTERM or SIGINT, and ignores the ones
     * after it. A signal the JVM keeps for itself (under {@code -Xrs}, say) is left to the JVM.
     */
    static void install(Runnable stop) {
        AtomicBoolean stopping = new AtomicBoolean();
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), signal -> {
                    if (stopping.compareAndSet(false, true)) {
                        new Thread(stop, "triage-shutdown").start();
                    }
                });
            } catch (IllegalArgumentException e) {
                // Not ours to handle: the shutdown hook stops Triage when the JVM exits on it.
            }
        }
    }
}
