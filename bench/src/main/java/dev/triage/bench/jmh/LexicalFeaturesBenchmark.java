package dev.triage.bench.jmh;

import dev.triage.features.LexicalFeatures;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The 19 lexical features of one prompt (target: at most 2 µs for 8 K characters). The word rules
 * read a bounded head and tail window, so the cost should not grow with the prompt beyond them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LexicalFeaturesBenchmark {

    @Param({"200", "8192", "102400"})
    public int promptChars;

    private String prompt;
    private final float[] features = new float[LexicalFeatures.COUNT];

    @Setup
    public void setUp() {
        prompt = BenchmarkPrompts.of(promptChars, 42);
    }

    @Benchmark
    public float[] extract() {
        LexicalFeatures.extract(prompt, features);
        return features;
    }
}
