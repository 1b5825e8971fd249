package dev.triage.bench.jmh;

import dev.triage.model.Estimate;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.metrics.RequestRecord;
import dev.triage.proxy.metrics.TriageMetrics;
import java.util.OptionalInt;
import java.util.OptionalLong;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Recording one finished request in the metrics, as every scheduled request's end does on its event
 * loop: queue wait, time to first byte, estimated and actual tokens, and the request's own timer.
 *
 * <pre>{@code
 * scripts/jmh RequestMetricsBenchmark
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RequestMetricsBenchmark {

    private TriageMetrics metrics;
    private RequestRecord record;

    @Setup(Level.Trial)
    public void start() {
        metrics = new TriageMetrics();
        record = new RequestRecord("id", "/v1/chat/completions", "chat", "chat", 0);
        record.sized(Estimate.ofTokens(120), 0, 120, false, 40, OptionalInt.empty());
        record.dispatched(2_000_000, false, 1);
        record.firstByte(5_000_000);
        record.responded(200);
        record.actualTokens(OptionalLong.of(140));
        record.end(Outcome.OK, null, 9_000_000);
    }

    @TearDown(Level.Trial)
    public void stop() {
        metrics.close();
    }

    @Benchmark
    public void finishedRequest() {
        metrics.finished(record);
    }
}
