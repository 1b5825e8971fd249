package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.scheduler.JobCost;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Simulations whose jobs are costed by models that move as jobs complete: the proxy's learner, and one by hand. */
class LearningSchedulingTest {

    private static final ServiceTimeModel SPEED = new ServiceTimeModel(0.05, 0.02);
    private static final ServiceTimeModel FLAGS = new ServiceTimeModel(0.5, 0.04);
    private static final SimulatedBackend SERIAL = new SimulatedBackend(1, SPEED.secondsPerToken(), 0);

    @Test
    void waitingJobsAreCostedAgainWhenTheCostingMoves() {
        // A runs from t = 0 to 1.05; B and C wait. Until A completes, B is cheaper; then the costing turns the order round.
        Workload workload = new Workload(List.of(request(0, 0, 50), request(1, 0.1, 10), request(2, 0.2, 20)));
        JobCosting turning = new JobCosting() {
            private long completed;

            @Override
            public JobCost cost(SimRequest request, int running) {
                double seconds = completed == 0 ? request.size().outputTokens() : 100 - request.size().outputTokens();
                return new JobCost(0, request.size().outputTokens(), 0.05, seconds);
            }

            @Override
            public long version() {
                return completed;
            }

            @Override
            public void completed(CompletedRequest request, int running) {
                completed++;
            }
        };
        SimulationRun run = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SERIAL, turning);
        assertEquals(List.of(0, 2, 1), run.completed().stream().map(c -> c.request().id()).toList());
        SimulationRun fixed = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SERIAL);
        assertEquals(List.of(0, 1, 2), fixed.completed().stream().map(c -> c.request().id()).toList());
    }

    @Test
    void theLearnerLearnsTheBackendFromTheSimulatedAnswers() {
        List<PrequentialReplay.Answered> stream = stream(400, 1);
        BackendLearner learner = new BackendLearner("simulated/chat", "test", LearnedServiceTime.of(FLAGS), true);
        Simulation.run(LearningScheduling.workload(stream, SPEED, FLAGS, 0.8, 3), PolicyVariant.parse("hrrn", Duration.ZERO), SERIAL,
                new LearnerCosting(learner, stream));
        assertEquals(400, learner.learned());
        assertEquals(SPEED.secondsPerToken(), learner.serviceTime().secondsPerToken(), 0.1 * SPEED.secondsPerToken());
    }

    @Test
    void aFrozenLearnerServesTheFlagsAndEveryPolicyRunsBothWays() {
        List<PrequentialReplay.Answered> stream = stream(300, 2);
        List<LearningScheduling.Row> rows = LearningScheduling.run(stream, SPEED, FLAGS,
                List.of(PolicyVariant.parse("sjf", Duration.ZERO), PolicyVariant.parse("hrrn", Duration.ZERO)), 0.8, List.of(0L, 1L));
        assertEquals(2, rows.size());
        for (LearningScheduling.Row row : rows) {
            assertEquals(2, row.frozen().size());
            assertEquals(2, row.learning().size());
            row.learning().forEach(run -> assertEquals(300, run.completed().size()));
        }
        // HRRN with the flags' service times (twice the backend's per token, ten times its base) leans
        // towards SJF; learned, an answer's wait weighs more against its length. The two must differ.
        LearningScheduling.Row hrrn = rows.get(1);
        assertTrue(hrrn.frozen().get(0).meanSojournSeconds() != hrrn.learning().get(0).meanSojournSeconds());
        assertTrue(LearningScheduling.markdown(rows).contains("| hrrn |"));
    }

    @Test
    void aPolicyThatPausesIsNotCostedByALearner() {
        Workload workload = new Workload(List.of(request(0, 0, 50)));
        assertThrows(IllegalArgumentException.class, () -> Simulation.run(workload, PolicyVariant.parse("laps", Duration.ZERO), SERIAL,
                JobCosting.estimates(PolicyVariant.parse("laps", Duration.ZERO))));
    }

    private static SimRequest request(int id, double arrival, int tokens) {
        return new SimRequest(id, arrival, JobSize.ofTokens("short", 0, tokens, SPEED, null), SPEED.seconds(tokens));
    }

    /** Answers of log-normal lengths, estimated within a factor of about 2 and three times too long. */
    private static List<PrequentialReplay.Answered> stream(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<PrequentialReplay.Answered> stream = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long actual = Math.max(1, Math.round(Math.exp(5 + random.nextGaussian())));
            double frozen = 3 * actual * Math.exp(0.7 * random.nextGaussian());
            stream.add(new PrequentialReplay.Answered(frozen, 50 + random.nextInt(500), actual, new Prompt("question " + i)));
        }
        return stream;
    }
}
