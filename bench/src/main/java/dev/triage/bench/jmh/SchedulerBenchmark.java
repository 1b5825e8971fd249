package dev.triage.bench.jmh;

import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.Dispatch;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Scheduler;
import dev.triage.proxy.scheduler.SchedulerSettings;
import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.scheduler.ewsjf.Theta;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One scheduling decision with a deep queue: a job arrives, the next job is chosen for a freed slot,
 * and the slot is given back, with 10,000 jobs waiting throughout. The target is 0.1 ms.
 *
 * <pre>{@code
 * scripts/jmh SchedulerBenchmark
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode({Mode.AverageTime, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SchedulerBenchmark {

    @Param({"fcfs", "sjf", "hrrn", "ewsjf"})
    public String policy;

    /** τ in seconds; 0 is off. With τ on, every 100th decision or so promotes a starved job. */
    @Param({"0", "60"})
    public int starvationTimeoutSeconds;

    @Param({"10000"})
    public int queued;

    private final VirtualClock clock = new VirtualClock();
    private final SplittableRandom random = new SplittableRandom(42);
    private Scheduler<Integer> scheduler;

    @Setup(Level.Trial)
    public void fill() {
        SchedulerSettings settings = new SchedulerSettings(Policy.parse(policy), Duration.ofSeconds(starvationTimeoutSeconds),
                queued + 1, 1);
        // EWSJF refines inline here (every 5 minutes of the benchmark's clock, 30,000 decisions) and its optimiser is
        // off: in the proxy both run on a thread of their own, so what counts is the decision.
        EwsjfSettings untuned = EwsjfSettings.defaults().withTuning(false, Theta.DEFAULT);
        scheduler = settings.policy().isOrder() ? new Scheduler<>(settings, clock)
                : new Scheduler<>(settings, clock, new EwsjfQueues<>(untuned, clock, Runnable::run));
        for (int i = 0; i < queued; i++) {
            submitOne(i);
            clock.nanos += 10_000_000L; // arrivals 10 ms apart: the queue spans 100 s of waiting
        }
    }

    private void submitOne(int id) {
        double tokens = random.nextDouble() < 0.5 ? 20 + random.nextDouble(180) : 800 + random.nextDouble(1200);
        int priority = random.nextInt(100) == 0 ? -1 : 0;
        int promptTokens = random.nextDouble() < 0.7 ? 20 + random.nextInt(500) : 2000 + random.nextInt(6000);
        double prefill = 0.05 + 0.0002 * promptTokens;
        scheduler.submit(id, priority, new JobCost(promptTokens, tokens, prefill, prefill + 0.02 * tokens));
    }

    @Benchmark
    public Integer submitAndDecide() {
        clock.nanos += 10_000_000L;
        submitOne(0);
        Dispatch<Integer> next = scheduler.dispatchNext();
        scheduler.release(next);
        return next.job().payload();
    }

    /** Time moves only when the benchmark moves it. */
    private static final class VirtualClock implements Clock {
        long nanos;

        @Override
        public long nanoTime() {
            return nanos;
        }
    }
}
