package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Triage learns from answers, end to end: a prompt that comes back is remembered by its
 * fingerprint, and with {@code --feedback-log} every whole answer is written for retraining.
 */
class LearningFromAnswersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = "Write the weekly status summary for project 17.";

    @TempDir
    Path directory;

    @Test
    void aRepeatedPromptIsRememberedAndEveryAnswerReachesTheFeedbackLog() throws Exception {
        Path feedback = directory.resolve("feedback.jsonl");
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--feedback-log", feedback.toString(),
                        "--feedback-log-prompts", "true")) {
            for (int week = 1; week <= 3; week++) {
                // The same template with another number: one fingerprint.
                assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.uncapped(PROMPT.replace("17", "1" + week)))
                        .statusCode());
                int answered = week;
                Await.until("answer " + week + " learned from", () -> learned(triage) == answered);
            }
            String metrics = triage.get("/metrics").body();
            Map<String, String> chat = Map.of("backend", "chat", "kind", "chat");
            assertEquals(1, PrometheusText.sum(metrics, "triage_learned_repeats", chat), metrics);
            assertEquals(1, PrometheusText.sum(metrics, "triage_learned_repeats_serving", chat),
                    "answers of one length beat an estimate that is not that length");
            // Three answers of one length make no (short, long) pair: both orders are unjudged, the frozen one serves.
            Map<String, List<Map<String, String>>> series = PrometheusText.series(metrics);
            assertEquals(List.of("adapted", "frozen"), series.get("triage_learned_ranking_accuracy").stream()
                    .filter(labels -> labels.entrySet().containsAll(chat.entrySet())).map(labels -> labels.get("estimates")).sorted().toList(),
                    metrics);
            assertEquals(0, PrometheusText.sum(metrics, "triage_learned_ranking_adapted_serving", chat), metrics);
            assertTrue(series.containsKey("triage_learned_ranking_adapted_serving"), metrics);
        }
        List<String> lines = Files.readAllLines(feedback);
        assertEquals(3, lines.size(), String.join("\n", lines));
        JsonNode first = JSON.readTree(lines.get(0));
        assertEquals(16, first.get("actualTokens").asLong(), "the fake backend answers 16 tokens when no limit is set");
        assertTrue(first.get("prompt").asText().startsWith("Write the weekly status summary"));
        for (String line : lines) {
            assertEquals(first.get("fingerprint"), JSON.readTree(line).get("fingerprint"));
        }
    }

    /** The tokens of several answers come summed: they tell no one answer's length, and are not learned from. */
    @Test
    void aRequestForSeveralAnswersIsNotLearnedFrom() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("two takes", 5, false).replaceFirst("\\{", "{\"n\":2,"))
                    .statusCode());
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("one take", 5, false)).statusCode());
            triage.metricsAfter(2);
            triage.triage().learning().flush();
            assertEquals(1, learned(triage), "only the single answer");
        }
    }

    private static double learned(RunningTriage triage) {
        try {
            return PrometheusText.sum(triage.get("/metrics").body(), "triage_learned_requests_total", Map.of("backend", "chat"));
        } catch (Exception e) {
            throw new AssertionError("the metrics could not be read", e);
        }
    }

    /**
     * The default ranker loads in the background, after the learned state was restored: its first
     * load is the configured model, as for an estimator that loads before Triage serves, so what was
     * learned of its estimates stays.
     */
    @Test
    void whatWasLearnedOfABackgroundLoadedModelSurvivesARestart() throws Exception {
        Path state = directory.resolve("state");
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO)) {
            String[] flags = {"--backend", backend.url(), "--estimator", "ranker", "--state-dir", state.toString()};
            try (RunningTriage first = RunningTriage.start(flags)) {
                first.awaitEstimator("ready");
                for (int i = 0; i < 8; i++) {
                    assertEquals(200, first.post("/v1/chat/completions", ChatRequests.uncapped("Describe city number " + i)).statusCode());
                }
                Await.until("the calibration scored against answers", () -> Double.isFinite(learnedLogError(first)));
            }
            try (RunningTriage second = RunningTriage.start(flags)) {
                second.awaitEstimator("ready");
                second.triage().learning().flush(); // a forgetting, had there been one, is done by now
                assertTrue(Double.isFinite(learnedLogError(second)), "restored, and kept once the ranker it was learned of loaded");
            }
        }
    }

    private static double learnedLogError(RunningTriage triage) {
        try {
            return PrometheusText.sum(triage.get("/metrics").body(), "triage_learned_log_error",
                    Map.of("kind", "chat", "estimates", "learned"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
