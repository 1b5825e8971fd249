package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.PromptFeatures;
import dev.triage.model.Estimate;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.metrics.RequestRecord;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnlineLearningTest {

    private static final LearnedServiceTime FLAGS = LearnedServiceTime.of(new ServiceTimeModel(0.5, 0.02));
    private static final String LEARNED_FOR = "http://127.0.0.1:9/ lexical";

    @TempDir
    Path stateDirectory;

    @Test
    void aRestartKeepsWhatWasLearned() {
        BackendLearner before = chatLearner(LEARNED_FOR, true);
        try (OnlineLearning learning = OnlineLearning.start(Optional.of(stateDirectory), List.of(before))) {
            feed(learning, 300, Outcome.OK);
            learning.flush();
        }
        assertTrue(before.learned() == 300 && before.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()) > 250,
                "it learned that answers run three times the estimate: " + before.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()));

        BackendLearner after = chatLearner(LEARNED_FOR, true);
        String warnings = standardError(() -> OnlineLearning.start(Optional.of(stateDirectory), List.of(after)).close());
        assertEquals("", warnings);
        // The map is rebuilt from the saved window: the same answers, so the same map but for the last
        // few answers the running learner had not yet rebuilt it with.
        double learned = before.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty());
        assertEquals(learned, after.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 0.01 * learned);
        assertEquals(before.serviceTime(), after.serviceTime());
        assertEquals(300, after.learned());
    }

    /** A shutdown with the learner's queue full still saves: the save is made after the queue is drained, not queued behind it. */
    @Test
    void aShutdownWithTheLearnerBehindStillSavesWhatItLearned() {
        BackendLearner before = chatLearner(LEARNED_FOR, true);
        OnlineLearning learning = OnlineLearning.start(Optional.of(stateDirectory), List.of(before));
        feed(learning, 5 * OnlineLearning.WAITING, Outcome.OK);
        long dropped = learning.dropped();
        learning.close();
        assertTrue(dropped > 0, "the queue filled: " + dropped + " dropped");
        BackendLearner after = chatLearner(LEARNED_FOR, true);
        OnlineLearning.start(Optional.of(stateDirectory), List.of(after)).close();
        assertEquals(before.learned(), after.learned(), "everything taken in was saved");
    }

    @Test
    void repeatedPromptsAreLearnedAndARestartKeepsThem() {
        BackendLearner before = chatLearner(LEARNED_FOR, true);
        try (OnlineLearning learning = OnlineLearning.start(Optional.of(stateDirectory), List.of(before))) {
            for (int round = 0; round < 4; round++) {
                for (int prompt = 0; prompt < 30; prompt++) {
                    learning.finished(record(100, 20 + 30 * prompt, Outcome.OK, OptionalLong.of(prompt), false));
                }
            }
            learning.flush();
        }
        assertTrue(before.repeatsServe(), before.repeatLogError() + " vs " + before.repeatModelLogError());
        assertEquals(30, before.repeatsRemembered());
        double repeated = before.tokens(100, PromptFeatures.NONE, OptionalLong.of(29), OptionalInt.empty());
        assertTrue(repeated > 500, "answered 890 tokens four times: " + repeated);
        assertEquals(400, before.tokens(100, PromptFeatures.NONE, OptionalLong.of(29), OptionalInt.of(400)), 1e-9);

        BackendLearner after = chatLearner(LEARNED_FOR, true);
        OnlineLearning.start(Optional.of(stateDirectory), List.of(after)).close();
        assertTrue(after.repeatsServe());
        for (int prompt = 0; prompt < 30; prompt++) {
            assertEquals(before.tokens(100, PromptFeatures.NONE, OptionalLong.of(prompt), OptionalInt.empty()),
                    after.tokens(100, PromptFeatures.NONE, OptionalLong.of(prompt), OptionalInt.empty()), 1e-9);
        }
    }

    @Test
    void aCorruptStateFileStartsCleanWithOneWarningLine() throws IOException {
        Files.writeString(stateDirectory.resolve(LearnedStateFile.FILE_NAME), "{\"format\":\"triage-learned-state/1\",\"learn");
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        String warnings = standardError(() -> OnlineLearning.start(Optional.of(stateDirectory), List.of(learner)).close());
        assertEquals(1, warnings.lines().count(), warnings);
        assertTrue(warnings.contains("ignoring the learned state"), warnings);
        assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
        assertEquals(FLAGS, learner.serviceTime());
        // Set aside, not overwritten by the next save: it may be a newer version's, kept for a rollback.
        try (var files = Files.list(stateDirectory)) {
            Path refused = files.filter(f -> f.getFileName().toString().startsWith(LearnedStateFile.FILE_NAME + ".refused-"))
                    .findFirst().orElseThrow(() -> new AssertionError("not set aside: " + warnings));
            assertEquals("{\"format\":\"triage-learned-state/1\",\"learn", Files.readString(refused));
        }
    }

    @Test
    void stateLearnedForAnotherBackendOrEstimatorIsNotLoaded() {
        try (OnlineLearning learning = OnlineLearning.start(Optional.of(stateDirectory), List.of(chatLearner(LEARNED_FOR, true)))) {
            feed(learning, 50, Outcome.OK);
        }
        BackendLearner other = chatLearner("http://127.0.0.1:9/ ranker", true);
        String warnings = standardError(() -> OnlineLearning.start(Optional.of(stateDirectory), List.of(other)).close());
        assertEquals(1, warnings.lines().count(), warnings);
        assertTrue(warnings.contains("chat/chat was learned for " + LEARNED_FOR), warnings);
        assertEquals(100, other.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
    }

    @Test
    void stateThatDoesNotFitThisVersionIsNotLoaded() throws IOException {
        Files.writeString(stateDirectory.resolve(LearnedStateFile.FILE_NAME), """
                {"format":"triage-learned-state/1","learners":{"chat/chat":{"learnedFor":"%s",
                "serviceTime":[1,2,3],"calibration":[4]}}}""".formatted(LEARNED_FOR));
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        String warnings = standardError(() -> OnlineLearning.start(Optional.of(stateDirectory), List.of(learner)).close());
        assertEquals(1, warnings.lines().count(), warnings);
        assertEquals(FLAGS, learner.serviceTime());
    }

    @Test
    void answersCutShortTeachNothing() {
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        try (OnlineLearning learning = OnlineLearning.start(Optional.empty(), List.of(learner))) {
            for (Outcome outcome : List.of(Outcome.CLIENT_GONE, Outcome.TIMEOUT, Outcome.UPSTREAM_ERROR, Outcome.REJECTED)) {
                feed(learning, 20, outcome);
            }
            learning.flush();
        }
        assertEquals(0, learner.learned());
        assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
    }

    @Test
    void theFallbacksEstimatesTeachTheServiceTimeButNotTheConfiguredEstimatorsCalibration() {
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        try (OnlineLearning learning = OnlineLearning.start(Optional.empty(), List.of(learner))) {
            feed(learning, 300, Outcome.OK, true);
            learning.flush();
        }
        assertEquals(300, learner.learned());
        assertNotEquals(FLAGS, learner.serviceTime(), "the service time is learned from every answer");
        assertEquals(0.01, learner.serviceTime().secondsPerToken(), 0.001, "the backend's time, not the client's");
        assertEquals(1.05, learner.serviceTime().seconds(40, 100, 1), 0.05);
        assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
        assertTrue(Double.isNaN(learner.frozenLogError()), "the configured estimator is not scored by another's estimates");
    }

    @Test
    void frozenItServesTheConfiguredModelAndSavesNothing() {
        BackendLearner learner = chatLearner(LEARNED_FOR, false);
        try (OnlineLearning learning = OnlineLearning.start(Optional.of(stateDirectory), List.of(learner))) {
            feed(learning, 100, Outcome.OK);
            learning.flush();
        }
        assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
        assertEquals(FLAGS, learner.serviceTime());
        assertTrue(Files.notExists(stateDirectory.resolve(LearnedStateFile.FILE_NAME)));
        assertTrue(learner.frozenLogError() > 0.9, "the errors are still measured: " + learner.frozenLogError());
    }

    @Test
    void anEstimateOrAnswerAtTheRequestsOwnLimitTeachesNoLengthAndTheServedEstimateStaysWithinIt() {
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        learner.learn(new CompletedRequest(50, OptionalInt.of(50), 10, 49, 1, 1.5));
        learner.learn(new CompletedRequest(30, OptionalInt.of(50), 10, 50, 1, 1.5));
        assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
        for (int i = 0; i < 50; i++) {
            learner.learn(new CompletedRequest(30, OptionalInt.of(500), 10, 90, 1, 2.3));
        }
        assertTrue(learner.tokens(30, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()) > 60);
        assertEquals(40, learner.tokens(30, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.of(40)), 1e-9);
    }

    @Test
    void aNewModelStartsTheCalibrationAgainButKeepsTheServiceTime() {
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        try (OnlineLearning learning = OnlineLearning.start(Optional.empty(), List.of(learner))) {
            feed(learning, 300, Outcome.OK);
            learning.flush();
            assertTrue(learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()) > 250);
            LearnedServiceTime serviceTime = learner.serviceTime();
            learning.modelChanged("chat", "chat");
            learning.flush();
            assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
            assertEquals(serviceTime, learner.serviceTime());
            feed(learning, 300, Outcome.OK);
            learning.flush();
            assertTrue(learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()) > 250, "it learns the new model's scale again");
        }
    }

    /** A new model with the learner's queue full: the forgetting waits for room instead of being dropped. */
    @Test
    void aNewModelWhileTheLearnerIsBehindStillStartsTheCalibrationAgain() {
        BackendLearner learner = chatLearner(LEARNED_FOR, true);
        try (OnlineLearning learning = OnlineLearning.start(Optional.empty(), List.of(learner))) {
            feed(learning, 5 * OnlineLearning.WAITING, Outcome.OK);
            assertTrue(learning.dropped() > 0, "the queue filled");
            learning.modelChanged("chat", "chat");
            learning.flush();
            assertEquals(100, learner.tokens(100, PromptFeatures.NONE, OptionalLong.empty(), OptionalInt.empty()), 1e-9);
        }
    }

    private static BackendLearner chatLearner(String learnedFor, boolean online) {
        return new BackendLearner(OnlineLearning.key("chat", "chat"), learnedFor, FLAGS, online);
    }

    /** Completed requests whose answers run three times the configured estimator's estimate, at 10 ms per token. */
    private static void feed(OnlineLearning learning, int count, Outcome outcome) {
        feed(learning, count, outcome, false);
    }

    /** The same, estimated by the fallback when {@code byFallback}. */
    private static void feed(OnlineLearning learning, int count, Outcome outcome, boolean byFallback) {
        Random random = new Random(count);
        for (int i = 0; i < count; i++) {
            double estimate = Math.exp(3 + 3 * random.nextDouble());
            learning.finished(record(estimate, Math.round(3 * estimate), outcome, OptionalLong.empty(), byFallback));
        }
    }

    /**
     * A completed request's record: estimated at {@code estimate}, answered by the backend in 50 ms and
     * {@code actual} tokens at 10 ms each, and read by a client that took up to 0.6 s more for the last bytes.
     */
    private static RequestRecord record(double estimate, long actual, Outcome outcome, OptionalLong fingerprint,
            boolean byFallback) {
        RequestRecord record = new RequestRecord("r", "/v1/chat/completions", "chat", "chat", 0);
        record.sized(Estimate.ofTokens(estimate), 0, estimate, byFallback, 40, OptionalInt.empty());
        record.prompt(PromptFeatures.NONE, fingerprint);
        record.dispatched(1_000_000, false, 1);
        record.responded(200);
        record.actualTokens(OptionalLong.of(actual));
        long served = Math.round((0.05 + 0.01 * actual) * 1e9);
        record.ran(served);
        record.end(outcome, null, 1_000_000 + served + actual % 7 * 100_000_000);
        return record;
    }

    private static String standardError(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
