package dev.triage.bench.jmh;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierEstimator;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One request through the {@code classifier} estimator with the shipped model: lexical features,
 * ONNX Runtime scoring and the expected-token sum (target: p50 at most 30 µs). Sampled, so JMH
 * reports the percentiles of single calls.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClassifierEstimatorBenchmark {

    @Param({"200", "8192"})
    public int promptChars;

    private ClassifierEstimator estimator;
    private Prompt prompt;

    @Setup(Level.Trial)
    public void setUp() {
        estimator = ClassifierEstimator.loadDefault();
        prompt = new Prompt(BenchmarkPrompts.of(promptChars, 42));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        estimator.close();
    }

    @Benchmark
    public Estimate estimate() {
        return estimator.estimate(prompt);
    }
}
