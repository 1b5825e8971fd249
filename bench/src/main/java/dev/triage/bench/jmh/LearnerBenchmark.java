package dev.triage.bench.jmh;

import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.CompletedRequest;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Learning from one completed request, as the learner's thread does after every answer: the shadow
 * evaluations, the calibration's window and map, the repeat memory, the ranking adaptation's pairs
 * and ranking windows, and the service-time fit, on a learner whose windows and repeat memory are
 * already full (every request has a prompt's features and a fingerprint, a quarter of them
 * repeats). The target is 50 µs on average. The features themselves are taken as the request ends
 * ({@link FeaturesBenchmark} has their cost).
 *
 * <pre>{@code
 * scripts/jmh LearnerBenchmark
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LearnerBenchmark {

    private static final int REQUESTS = 4096;

    private BackendLearner learner;
    private CompletedRequest[] requests;
    private int next;

    @Setup(Level.Trial)
    public void start() {
        Random random = new Random(1);
        requests = new CompletedRequest[REQUESTS];
        for (int i = 0; i < REQUESTS; i++) {
            double estimate = Math.exp(3 + 3 * random.nextDouble());
            long actual = Math.round(estimate * Math.exp(0.5 + 0.7 * random.nextGaussian()));
            long fingerprint = random.nextInt(4) == 0 ? random.nextInt(64) : random.nextLong();
            requests[i] = new CompletedRequest(estimate, OptionalInt.empty(), 200 * random.nextDouble(), actual,
                    1 + random.nextInt(4), 0.05 + 0.02 * actual, OptionalLong.of(fingerprint), false, Optional.of(RequestFeatures.of(
                    new Prompt(BenchmarkPrompts.of(200 + random.nextInt(4_000), random.nextLong())))));
        }
        learner = new BackendLearner("chat/chat", "benchmark", LearnedServiceTime.of(new ServiceTimeModel(0.5, 0.02)), true);
        for (int round = 0; round < 2; round++) {
            for (CompletedRequest request : requests) {
                learner.learn(request);
            }
        }
    }

    @Benchmark
    public void learnFromOneAnswer() {
        learner.learn(requests[next]);
        next = (next + 1) % REQUESTS;
    }
}
