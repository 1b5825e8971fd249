package dev.triage.bench.jmh;

import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.scheduler.JobListener;
import dev.triage.proxy.scheduler.JobTag;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Refusal;
import dev.triage.proxy.scheduler.SchedulerSettings;
import dev.triage.proxy.scheduler.Slot;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Getting a backend slot and giving it back when one is free and nobody waits: taken at once on the
 * caller's thread ({@code idleSlot}, alone and with four threads at it), against the same grant asked
 * of the dispatch loop ({@code queuedSlot}: a submission, the loop's decision, the answer back).
 *
 * <pre>{@code
 * scripts/jmh SlotGrantBenchmark
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SlotGrantBenchmark {

    private static final JobTag TAG = new JobTag("id", "chat");

    private DispatchLoop loop;
    private BackendQueue queue;

    @Setup(Level.Trial)
    public void start() {
        loop = new DispatchLoop(Clock.system());
        queue = loop.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, 1024, 64), Duration.ZERO);
    }

    @TearDown(Level.Trial)
    public void stop() {
        loop.close();
    }

    @Benchmark
    public void idleSlot() {
        queue.takeIdleSlot().release();
    }

    @Benchmark
    @Threads(4)
    public void idleSlotFourThreads() {
        queue.takeIdleSlot().release();
    }

    @Benchmark
    public void queuedSlot() {
        CompletableFuture<Slot> granted = new CompletableFuture<>();
        queue.submit(TAG, 0, 100, 1, Runnable::run, new JobListener() {
            @Override
            public void dispatched(Slot slot) {
                granted.complete(slot);
            }

            @Override
            public void refused(Refusal refusal) {
                granted.completeExceptionally(new IllegalStateException(refusal.reason().toString()));
            }
        });
        granted.join().release();
    }
}
