package dev.triage.proxy.concurrent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes Triage's background threads (everything but the Netty event loops): daemons, so that none
 * of them keeps a stopping process alive, named after their role and numbered ({@code
 * triage-dispatch-1}, {@code triage-audio-2}), so that a thread dump says which is which.
 *
 * <pre>{@code
 * ExecutorService worker = Executors.newSingleThreadExecutor(new DaemonThreadFactory("triage-model-reload"));
 * }</pre>
 */
public final class DaemonThreadFactory implements ThreadFactory {

    private final String role;
    private final AtomicInteger made = new AtomicInteger();

    public DaemonThreadFactory(String role) {
        this.role = role;
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new Thread(task, role + "-" + made.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    }
}
