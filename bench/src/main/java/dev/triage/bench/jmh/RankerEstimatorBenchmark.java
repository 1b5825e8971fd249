package dev.triage.bench.jmh;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerModel;
import dev.triage.model.ranker.SentenceEncoder;
import java.util.List;
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
 * One request through the ranker (target: p50 at most 10 ms at 128 tokens on two cores). Sampled,
 * so JMH reports the percentiles of single calls. {@code encoderAndHead}: tokenizer, MiniLM and the
 * shipped head on a prompt of exactly {@code tokens} encoder tokens, the encoder allowed its full
 * 512; {@code shippedEstimator}: the estimator as Triage serves it, which cuts prompts at its
 * model's truncation (256 tokens for the shipped model), calibration included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RankerEstimatorBenchmark {

    @Param({"16", "128", "512"})
    public int tokens;

    private SentenceEncoder encoder;
    private RankerModel head;
    private RankerEstimator estimator;
    private String text;
    private Prompt prompt;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        encoder = SentenceEncoder.open(SentenceEncoder.MAX_POSITIONS);
        head = RankerModel.loadDefault();
        estimator = RankerEstimator.loadDefault();
        text = RankerPrompts.ofTokens(encoder, tokens, 42);
        prompt = new Prompt(text);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        estimator.close();
        head.close();
        encoder.close();
    }

    @Benchmark
    public List<Estimate> encoderAndHead() {
        return head.estimates(encoder.embed(List.of(text)));
    }

    @Benchmark
    public Estimate shippedEstimator() {
        return estimator.estimate(prompt);
    }
}
