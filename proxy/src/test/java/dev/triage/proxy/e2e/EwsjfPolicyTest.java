package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code --policy ewsjf} through the real proxy: it learns its queues from the prompts it sees, then
 * sends the requests of short prompts before those of long ones, and shows its queues, parameters and
 * trials in the admin API and the metrics.
 */
class EwsjfPolicyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A system prompt of about 1,500 tokens: the bulk of a long prompt, so the last user message still names the request. */
    private static final String LONG_CONTEXT = "context ".repeat(750);

    /** A chat request named by its last user message, with a long system prompt or none. */
    private static String chat(String name, boolean longPrompt, int maxTokens) {
        String system = longPrompt ? "{\"role\":\"system\",\"content\":\"" + LONG_CONTEXT + "\"}," : "";
        return "{\"model\":\"fake\",\"max_tokens\":" + maxTokens + ",\"messages\":[" + system
                + "{\"role\":\"user\",\"content\":\"" + name + "\"}]}";
    }

    @Test
    void itLearnsItsQueuesFromThePromptsAndSendsShortPromptsFirst() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--policy", "ewsjf",
                        "--starvation-timeout", "off")) {
            EwsjfQueues<?> ewsjf = triage.chatQueue().ewsjf().orElseThrow();
            for (int i = 0; i < 70; i++) {
                HttpResponse<String> response = triage.post("/v1/chat/completions", chat("warm-up", i % 3 == 0, 1));
                assertEquals(200, response.statusCode());
                assertEquals("ewsjf", response.headers().firstValue("x-triage-policy").orElseThrow());
            }
            // The queues are learnt on EWSJF's own thread and swapped in at the next decision.
            Await.until("the queues are learnt", () -> {
                try {
                    triage.post("/v1/chat/completions", chat("nudge", false, 1));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return ewsjf.queueCount() >= 2;
            });

            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            responses.add(triage.postAsync("/v1/chat/completions", chat("busy [held]", false, 1)));
            Await.until("the busy request reaches the backend", () -> backend.started().contains("busy [held]"));
            List<String> burst = List.of("long-1", "short-1", "long-2", "short-2", "long-3", "short-3");
            for (int i = 0; i < burst.size(); i++) {
                String name = burst.get(i);
                responses.add(triage.postAsync("/v1/chat/completions", chat(name, name.startsWith("long"), 5)));
                triage.awaitWaiting(i + 1);
            }
            backend.releaseHeld();
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(30, TimeUnit.SECONDS).statusCode());
            }
            List<String> finished = backend.finished().stream().filter(burst::contains).toList();
            assertEquals(List.of("short-1", "short-2", "short-3", "long-1", "long-2", "long-3"), finished);

            JsonNode view = JSON.readTree(triage.get("/triage/ewsjf").body());
            JsonNode chat = view.path("backends").get(0);
            assertEquals("chat", chat.path("backend").asText());
            assertEquals("prompt", chat.path("ewsjf").path("sizeFeature").asText());
            assertTrue(chat.path("ewsjf").path("queues").size() >= 2, view.toString());
            assertEquals(3.0, chat.path("ewsjf").path("theta").path("alpha").asDouble(), view.toString());
            assertTrue(chat.path("ewsjf").path("trials").isArray());

            String metrics = triage.metricsAfter(1 + 70 + burst.size());
            Map<String, String> backendTag = Map.of("backend", "chat");
            assertTrue(PrometheusText.sum(metrics, "triage_ewsjf_queues", backendTag) >= 2, metrics);
            assertEquals(3.0, PrometheusText.sum(metrics, "triage_ewsjf_theta", Map.of("backend", "chat", "parameter", "alpha")));
            assertEquals(0, PrometheusText.sum(metrics, "triage_ewsjf_trials_total", backendTag));
        }
    }

    @Test
    void otherPoliciesShowNoEwsjfState() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--policy", "sjf")) {
            assertEquals(0, JSON.readTree(triage.get("/triage/ewsjf").body()).path("backends").size());
            assertTrue(triage.chatQueue().ewsjf().isEmpty());
        }
    }
}
