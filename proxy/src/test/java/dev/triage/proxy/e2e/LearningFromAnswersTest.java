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

    private static double learned(RunningTriage triage) {
        try {
            return PrometheusText.sum(triage.get("/metrics").body(), "triage_learned_requests_total", Map.of("backend", "chat"));
        } catch (Exception e) {
            throw new AssertionError("the metrics could not be read", e);
        }
    }
}
