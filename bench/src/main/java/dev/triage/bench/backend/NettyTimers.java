package dev.triage.bench.backend;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/** An event loop's timers, for an engine confined to that loop. */
public record NettyTimers(EventExecutor loop) implements EngineTimers {

    @Override
    public long nanoTime() {
        return loop.ticker().nanoTime();
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
        assert loop.inEventLoop();
        var future = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }
}
