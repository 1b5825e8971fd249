package dev.triage.bench.jmh;

import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
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
 * The request features of one prompt: the lexical features, the conversation's shape and the prompt's cues, which the
 * {@code lexical} model and the ranker's head read. Every rule reads bounded windows, so the cost should not grow with
 * the prompt beyond them; compare with {@link LexicalFeaturesBenchmark}, the 19 features alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RequestFeaturesBenchmark {

    @Param({"200", "8192", "102400"})
    public int promptChars;

    private Prompt prompt;
    private final float[] features = new float[RequestFeatures.COUNT];

    @Setup
    public void setUp() {
        prompt = new Prompt(BenchmarkPrompts.of(promptChars, 42));
    }

    @Benchmark
    public float[] extract() {
        RequestFeatures.extract(prompt, features, 0);
        return features;
    }
}
