package dev.triage.bench.jmh;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.SentenceEncoder;
import java.util.ArrayList;
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
 * The shipped ranker scoring {@code batch} prompts of 128 encoder tokens in one
 * {@code estimateAll} call: the time of one call; prompts per second = batch / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RankerBatchBenchmark {

    @Param({"1", "8", "32"})
    public int batch;

    private RankerEstimator estimator;
    private List<Prompt> prompts;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        estimator = RankerEstimator.loadDefault();
        prompts = new ArrayList<>();
        try (SentenceEncoder encoder = SentenceEncoder.open(SentenceEncoder.MAX_POSITIONS)) {
            for (int i = 0; i < batch; i++) {
                prompts.add(new Prompt(RankerPrompts.ofTokens(encoder, 128, i)));
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        estimator.close();
    }

    @Benchmark
    public List<Estimate> estimateAll() {
        return estimator.estimateAll(prompts);
    }
}
