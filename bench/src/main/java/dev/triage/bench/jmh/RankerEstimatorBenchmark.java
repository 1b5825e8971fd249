package dev.triage.bench.jmh;

import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.ranker.EncoderSpec;
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
 * so JMH reports the percentiles of single calls. {@code encoderAndHead}: tokenizer, MiniLM, the
 * request features and the shipped head on a prompt of exactly {@code tokens} encoder tokens, the encoder allowed its full
 * 512; {@code shippedEstimator}: the estimator as Triage serves it, which cuts prompts at its
 * model's window (256 tokens for the shipped model, a longer prompt encoded from its head and tail), calibration included. Each benchmark
 * loads only its own encoder: an idle second ONNX Runtime session would share the two cores.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RankerEstimatorBenchmark {

    @State(Scope.Benchmark)
    public static class Prompts {
        @Param({"16", "128", "512"})
        public int tokens;

        String text;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            try (SentenceEncoder encoder = SentenceEncoder.open(EncoderSpec.DEFAULT, EncoderSpec.MAX_POSITIONS, 1)) {
                text = RankerPrompts.ofTokens(encoder, tokens, 42);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class EncoderAndHead {
        SentenceEncoder encoder;
        RankerModel head;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            encoder = SentenceEncoder.open(EncoderSpec.DEFAULT, EncoderSpec.MAX_POSITIONS);
            head = RankerModel.loadDefault();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            head.close();
            encoder.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Shipped {
        RankerEstimator estimator;

        @Setup(Level.Trial)
        public void setUp() {
            estimator = RankerEstimator.loadDefault();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            estimator.close();
        }
    }

    @Benchmark
    public List<Estimate> encoderAndHead(EncoderAndHead ranker, Prompts prompts) {
        Prompt prompt = new Prompt(prompts.text);
        return ranker.head.estimates(new float[][] {ranker.encoder.embed(prompt.text())},
                new float[][] {RequestFeatures.of(prompt)});
    }

    @Benchmark
    public Estimate shippedEstimator(Shipped shipped, Prompts prompts) {
        return shipped.estimator.estimate(new Prompt(prompts.text));
    }
}
