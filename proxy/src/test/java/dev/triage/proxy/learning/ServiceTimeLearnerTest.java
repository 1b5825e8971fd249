package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ServiceTimeLearnerTest {

    /** The flags' defaults: what the learner starts from. */
    private static final LearnedServiceTime FLAGS = LearnedServiceTime.of(new ServiceTimeModel(0.5, 0.02));

    @Test
    void learnsASerialBackendsPrefillAndDecodeSpeedWithin10PercentIn200RequestsDespiteStalls() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        double base = 0.05;
        double perToken = 0.012;
        learnFromASerialBackendThatStalls(learner, new Random(7), 200, base, perToken, 0.03);
        LearnedServiceTime learned = learner.current();
        assertEquals(base, learned.baseSeconds(), 0.1 * base, learned.toString());
        assertEquals(perToken, learned.secondsPerToken(), 0.1 * perToken, learned.toString());
        assertEquals(0, learned.growthPerRunning(), 1e-9, "nothing ran beside it: " + learned);
    }

    /**
     * A backend whose every answer takes seconds (a verbose model): each request says little about its
     * fixed cost, and the flags' 0.5 s, ten times the real one, must still give way to what 200 of them say.
     */
    @Test
    void learnsTheFixedCostOfABackendWhoseAnswersAreAllLong() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        Random random = new Random(13);
        double base = 0.05;
        double perToken = 0.02;
        for (int i = 0; i < 200; i++) {
            double tokens = Math.round(Math.exp(6.6 + 0.5 * random.nextGaussian()));
            // A timer's and a network's lateness, a few milliseconds, on top of the backend's own time.
            double seconds = base + perToken * tokens + 0.003 * -Math.log(1 - random.nextDouble());
            learner.learn(0, tokens, 1, seconds);
        }
        LearnedServiceTime learned = learner.current();
        assertEquals(base + 0.003, learned.baseSeconds(), 0.1 * base, learned.toString());
        assertEquals(perToken, learned.secondsPerToken(), 0.01 * perToken, learned.toString());
    }

    /**
     * A backend five times slower per token than the flags say, with 5% noise and a stall every 20th
     * request: fifty answers are enough to learn its time per token, on most request streams.
     */
    @Test
    void learnsTheTimePerTokenOfABackendFarSlowerThanTheFlagsWithinFiftyRequests() {
        double perToken = 0.1;
        double[] errors = new double[10];
        for (int stream = 0; stream < errors.length; stream++) {
            ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
            learnFromASerialBackendThatStalls(learner, new Random(stream + 1), 50, 2.0, perToken, 0.05);
            errors[stream] = Math.abs(learner.current().secondsPerToken() / perToken - 1);
        }
        Arrays.sort(errors);
        double median = (errors[4] + errors[5]) / 2;
        assertTrue(median <= 0.05, "median relative error of the time per token: " + median + " " + Arrays.toString(errors));
    }

    /**
     * Flags that make the typical request a few hundred times shorter, or a hundred times longer, than
     * the backend's: the prior still weighs a fraction of one of the backend's requests, not hundreds
     * of them, and pulls no term towards the flags once a thousand answers have spoken.
     */
    @Test
    void flagsFarOffTheBackendsSpeedEitherWayGiveWayToItsAnswers() {
        double base = 0.5;
        double perToken = 0.02;
        for (ServiceTimeModel flags : List.of(new ServiceTimeModel(0.001, 0.00005), new ServiceTimeModel(50, 2))) {
            ServiceTimeLearner learner = new ServiceTimeLearner(LearnedServiceTime.of(flags));
            Random random = new Random(17);
            for (int i = 0; i < 1000; i++) {
                double tokens = answerTokens(random);
                learner.learn(0, tokens, 1, (base + perToken * tokens) * (1 + 0.03 * random.nextGaussian()));
            }
            LearnedServiceTime learned = learner.current();
            assertEquals(base, learned.baseSeconds(), 0.1 * base, flags + ": " + learned);
            assertEquals(perToken, learned.secondsPerToken(), 0.1 * perToken, flags + ": " + learned);
        }
    }

    @Test
    void learnsPrefillPerPromptTokenAndTheBatchSlowdown() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        Random random = new Random(11);
        double prefill = 0.0004;
        double perToken = 0.02;
        double growth = 0.08;
        for (int i = 0; i < 400; i++) {
            double prompt = promptTokens(random);
            double tokens = answerTokens(random);
            int running = 1 + random.nextInt(6);
            double seconds = (0.03 + prefill * prompt + perToken * (1 + growth * (running - 1)) * tokens)
                    * (1 + 0.02 * random.nextGaussian());
            learner.learn(prompt, tokens, running, seconds);
        }
        LearnedServiceTime learned = learner.current();
        assertEquals(prefill, learned.secondsPerPromptToken(), 0.15 * prefill, learned.toString());
        assertEquals(perToken, learned.secondsPerToken(), 0.1 * perToken, learned.toString());
        assertEquals(growth, learned.growthPerRunning(), 0.2 * growth, learned.toString());
    }

    /**
     * Answers whose fixed cost the unconstrained fit puts at −0.3 s, paid back by 0.02 s per prompt
     * token: a fit that only sets the fixed cost to 0 afterwards overshoots every request by 0.3 s.
     */
    @Test
    void aTermHeldAtZeroLeavesTheOthersFittedToWhatWasSeen() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        double[][] seen = {{10, 100, 0.9}, {20, 100, 1.1}, {15, 200, 2.0}};
        for (int i = 0; i < 300; i++) {
            double[] request = seen[i % seen.length];
            learner.learn(request[0], request[1], 1, request[2]);
        }
        LearnedServiceTime learned = learner.current();
        for (double[] request : seen) {
            double predicted = learned.seconds(request[0], request[1], 1);
            assertEquals(request[2], predicted, 0.12 * request[2], learned.toString());
        }
        assertTrue(learned.baseSeconds() >= 0 && learned.secondsPerPromptToken() >= 0, learned.toString());
    }

    /**
     * Requests of one shape, for ever: they tell the time of that shape and nothing of how it splits
     * between the terms. The split must stay the prior's, not drift with rounding from one answer to
     * the next, or any other shape is mispredicted.
     */
    @Test
    void requestsOfOneShapeLeaveTheSplitSteady() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        for (int i = 0; i < 20_000; i++) {
            learner.learn(50, 300, 3, 9.0);
            if (i >= 15_000) {
                LearnedServiceTime learned = learner.current();
                assertEquals(9.0, learned.seconds(50, 300, 3), 0.09, "at " + i + ": " + learned);
                assertTrue(learned.secondsPerPromptToken() < 0.001, "at " + i + ": " + learned);
            }
        }
    }

    @Test
    void followsABackendThatSlowsDown() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        Random random = new Random(3);
        for (int i = 0; i < 3500; i++) {
            double perToken = i < 1000 ? 0.01 : 0.03;
            double tokens = answerTokens(random);
            learner.learn(0, tokens, 1, 0.05 + perToken * tokens);
        }
        assertEquals(0.03, learner.current().secondsPerToken(), 0.003, learner.current().toString());
    }

    @Test
    void ignoresObservationsThatAreNotTimesAndKeepsTheFlagsUntilTheFirstRealOne() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        learner.learn(10, 10, 1, Double.NaN);
        learner.learn(10, 10, 1, -1);
        learner.learn(10, Double.POSITIVE_INFINITY, 1, 2);
        learner.learn(10, 10, 0, 2);
        assertEquals(0, learner.observations());
        assertEquals(FLAGS.seconds(100, 300, 1), learner.current().seconds(100, 300, 1), 1e-9);
    }

    @Test
    void savedStateRestoresTheSameFitAndBadStateChangesNothing() {
        ServiceTimeLearner learner = new ServiceTimeLearner(FLAGS);
        Random random = new Random(5);
        for (int i = 0; i < 50; i++) {
            double tokens = answerTokens(random);
            learner.learn(100, tokens, 1, 0.1 + 0.01 * tokens);
        }
        ServiceTimeLearner restored = new ServiceTimeLearner(FLAGS);
        assertTrue(restored.restore(learner.state()));
        assertEquals(learner.current(), restored.current());
        double[] broken = learner.state();
        broken[3] = Double.NaN;
        ServiceTimeLearner untouched = new ServiceTimeLearner(FLAGS);
        double[] uncounted = learner.state();
        uncounted[uncounted.length - 1] = 0;
        double[] negative = learner.state();
        negative[0] = -1;
        assertTrue(!untouched.restore(broken) && !untouched.restore(new double[3]) && !untouched.restore(uncounted)
                && !untouched.restore(negative));
        assertEquals(FLAGS.seconds(0, 100, 1), untouched.current().seconds(0, 100, 1), 1e-9);
    }

    /**
     * {@code requests} answers of a serial backend taking {@code base + perToken × tokens} seconds with
     * relative noise of {@code noise}, every 20th stalled six times over.
     */
    private static void learnFromASerialBackendThatStalls(ServiceTimeLearner learner, Random random, int requests, double base,
            double perToken, double noise) {
        for (int i = 0; i < requests; i++) {
            double tokens = answerTokens(random);
            double seconds = (base + perToken * tokens) * (1 + noise * random.nextGaussian());
            if (i % 20 == 7) {
                seconds *= 6; // a stalled request: the machine was busy
            }
            learner.learn(promptTokens(random), tokens, 1, seconds);
        }
    }

    /** Answer lengths spread over orders of magnitude, as chat answers are (median about 150). */
    static double answerTokens(Random random) {
        return Math.max(1, Math.round(Math.exp(5 + 1.2 * random.nextGaussian())));
    }

    private static double promptTokens(Random random) {
        return Math.round(Math.exp(4.5 + 1.0 * random.nextGaussian()));
    }
}
