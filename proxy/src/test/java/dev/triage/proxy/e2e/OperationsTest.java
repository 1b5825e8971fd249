package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What an operator sees: metrics after a mix of requests, the queue view, the config view, readiness. */
class OperationsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void metricsCountEveryOutcomeAndHistogramsHoldEverySample() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--max-queue", "1")) {
            // Two that succeed, one streamed: 5 and 7 tokens.
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("ok one", 5, false)).statusCode());
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("ok two", 7, true)).statusCode());
            // One malformed: rejected before it has an estimate.
            assertEquals(400, triage.post("/v1/chat/completions", "{oops").statusCode());
            // One the backend breaks off: an upstream error.
            assertEquals(502, triage.post("/v1/chat/completions", ChatRequests.chat("[garbage]", 3, false)).statusCode());
            // One the backend refuses itself: passed on, and counted as the backend's 4xx.
            assertEquals(422, triage.post("/v1/chat/completions", ChatRequests.chat("[reject]", 3, false)).statusCode());
            // While a long one runs: one waits, the queue is then full, and the waiting client leaves.
            CompletableFuture<HttpResponse<String>> busy =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
            Await.until("busy runs", () -> backend.started().contains("busy [held]"));
            try (RawClient leaving = new RawClient(triage.port())) {
                leaving.post("/v1/chat/completions", ChatRequests.chat("leaves", 3, false));
                RunningTriage.awaitWaiting(triage.chatQueue(), 1); // taken in by the loop: the queue is full
                assertEquals(429, triage.post("/v1/chat/completions", ChatRequests.chat("full", 3, false)).statusCode());
            }
            Await.until("the leaver is withdrawn", () -> triage.chatQueue().waitingCount() == 0);
            backend.releaseHeld();
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());

            String metrics = triage.metricsAfter(8);
            Map<String, String> chat = Map.of("backend", "chat");
            assertEquals(3, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "ok")), metrics);
            assertEquals(2, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "rejected")));
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "upstream_error")));
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "backend_4xx")));
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "client_gone")));
            assertEquals(1, PrometheusText.sum(metrics, "triage_rejected_total", Map.of("reason", "invalid_request")));
            assertEquals(1, PrometheusText.sum(metrics, "triage_rejected_total", Map.of("reason", "queue_full")));
            // Waited: the five dispatched (the three that succeeded, the one the backend broke off and the one it
            // refused) and the leaver, until it left.
            assertEquals(6, PrometheusText.sum(metrics, "triage_queue_wait_seconds_count", chat));
            assertEquals(5, PrometheusText.sum(metrics, "triage_time_to_first_byte_seconds_count", chat) + 1,
                    "the garbage answer had no first byte of HTTP");
            assertEquals(3, PrometheusText.sum(metrics, "triage_estimate_tokens_count", chat));
            assertEquals(3, PrometheusText.sum(metrics, "triage_actual_tokens_count", chat));
            assertEquals(5 + 7 + 1, PrometheusText.sum(metrics, "triage_actual_tokens_sum", chat));
            // Every sized request was estimated once: the three ok, the upstream error, the backend's 4xx, the
            // leaver, the refused.
            assertEquals(7, PrometheusText.sum(metrics, "triage_estimator_seconds_count", Map.of("estimator", "classifier")));
            assertEquals(0, PrometheusText.sum(metrics, "triage_queue_depth", chat));
            assertEquals(0, PrometheusText.sum(metrics, "triage_inflight", chat));
            assertEquals(1, PrometheusText.sum(metrics, "triage_slots", chat));
            assertEquals(0, PrometheusText.sum(metrics, "triage_starvation_promotions_total", chat));
            assertTrue(PrometheusText.has(metrics, "triage_ranking_accuracy"));
            assertTrue(PrometheusText.has(metrics, "jvm_memory_used_bytes"));
            assertTrue(PrometheusText.has(metrics, "netty_eventexecutor_tasks_pending"), "Netty event loop pending tasks");
            assertFalse(metrics.contains("ok one"), "no prompt in metrics");
        }
    }

    @Test
    void openMetricsWhenTheScraperAsksForIt() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<String> response = triage.client().send(HttpRequest.newBuilder(triage.uri("/metrics"))
                    .header("accept", "application/openmetrics-text; version=1.0.0,text/plain;q=0.5").GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(response.headers().firstValue("content-type").orElseThrow().startsWith("application/openmetrics-text"));
            assertTrue(response.body().endsWith("# EOF\n"), "OpenMetrics ends with # EOF");
            HttpResponse<String> plain = triage.get("/metrics");
            assertTrue(plain.headers().firstValue("content-type").orElseThrow().startsWith("text/plain; version=0.0.4"));
        }
    }

    @Test
    void rankingAccuracyIsComputedFromCompletedRequests() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            // max_tokens caps the estimate and the fake backend answers exactly max_tokens: a perfect ranking.
            for (int tokens : new int[] {10, 900, 20, 1000}) {
                assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("n", tokens, false)).statusCode());
            }
            Await.until("accuracy is known", () -> !Double.isNaN(triage.chatQueue().rankingAccuracy()));
            String metrics = triage.metricsAfter(4);
            assertEquals(1.0, PrometheusText.sum(metrics, "triage_ranking_accuracy", Map.of("backend", "chat")));
        }
    }

    @Test
    void queueViewListsWaitingRequestsInTheOrderTheyWillBeSent() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            // Held while three requests are queued and the view is read.
            responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false)));
            Await.until("busy runs", () -> backend.started().contains("busy [held]"));
            int[] sizes = {80, 5, 40};
            for (int i = 0; i < sizes.length; i++) {
                String body = ChatRequests.chat("secret prompt " + i, sizes[i], false);
                if (i == 2) {
                    body = body.replace("{\"model\"", "{\"priority\":-1,\"model\"");
                }
                HttpRequest request = HttpRequest.newBuilder(triage.uri("/v1/chat/completions"))
                        .header("x-request-id", "req-" + i).POST(HttpRequest.BodyPublishers.ofString(body)).build();
                responses.add(triage.client().sendAsync(request, HttpResponse.BodyHandlers.ofString()));
                triage.awaitWaiting(i + 1);
            }
            HttpResponse<String> view = triage.get("/triage/queue");
            assertEquals(200, view.statusCode());
            assertFalse(view.body().contains("secret prompt"), "never the prompt");
            JsonNode chat = JSON.readTree(view.body()).path("backends").get(0);
            assertEquals("chat", chat.path("backend").asText());
            assertEquals(1, chat.path("slots").asInt());
            assertEquals(1, chat.path("busySlots").asInt());
            JsonNode waiting = chat.path("waiting");
            // Priority -1 first, then shortest first.
            assertEquals(List.of("req-2", "req-1", "req-0"), List.of(waiting.get(0).path("id").asText(),
                    waiting.get(1).path("id").asText(), waiting.get(2).path("id").asText()));
            assertEquals(1, waiting.get(0).path("position").asInt());
            assertEquals(-1, waiting.get(0).path("priority").asInt());
            assertEquals(5.0, waiting.get(1).path("expectedTokens").asDouble());
            assertEquals("chat", waiting.get(1).path("routeKind").asText());
            assertTrue(waiting.get(2).path("waitedMillis").asLong() >= 0);
            backend.releaseHeld();
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(30, TimeUnit.SECONDS).statusCode());
            }
            assertEquals(List.of("busy [held]", "secret prompt 2", "secret prompt 1", "secret prompt 0"), backend.finished());
        }
    }

    @Test
    void configViewShowsEffectiveValuesWithSecretsRedacted() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--policy", "hrrn",
                        "--admin-token", "tok-9")) {
            HttpResponse<String> anonymous = triage.get("/triage/config");
            assertEquals(401, anonymous.statusCode());
            HttpResponse<String> view = triage.client().send(HttpRequest.newBuilder(triage.uri("/triage/config"))
                    .header("authorization", "Bearer tok-9").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, view.statusCode());
            JsonNode config = JSON.readTree(view.body());
            assertEquals("hrrn", config.path("policy").asText());
            assertEquals(backend.url(), config.path("backend").asText());
            assertEquals("<redacted>", config.path("admin-token").asText());
            assertFalse(view.body().contains("tok-9"));
        }
    }

    @Test
    void readinessFollowsTheBackend() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        try (RunningTriage down = RunningTriage.start("--backend", "http://127.0.0.1:" + closedPort)) {
            assertEquals(503, down.get("/readyz").statusCode());
            assertEquals(200, down.get("/healthz").statusCode());
        }
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage up = RunningTriage.start("--backend", backend.url())) {
            Await.until("ready", () -> {
                try {
                    return up.get("/readyz").statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    @Test
    void aBackendThatAnswersItsHealthPathWith404IsNotReady() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage wrongPath = RunningTriage.start("--backend", backend.url(), "--health-path", "/health")) {
            // The second probe starts only once the first has its answer.
            Await.until("the backend was probed twice", () -> backend.requestHeaders().size() >= 2);
            assertEquals(503, wrongPath.get("/readyz").statusCode());
        }
    }

    @Test
    void theAudioBackendIsProbedAtItsOwnPath() throws Exception {
        try (FakeOpenAiBackend chat = FakeOpenAiBackend.start(1, Duration.ZERO);
                FakeOpenAiBackend speech = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", chat.url(), "--audio-backend", speech.url(),
                        "--audio-health-path", "/health", "--probe-interval", "100ms")) {
            Await.until("the audio backend was probed twice", () -> speech.requestHeaders().size() >= 2);
            assertEquals(List.of(), chat.requestHeaders(), "the chat backend is asked for its models, at --health-path");
            assertEquals(503, triage.get("/readyz").statusCode(), "the audio backend answers /health with a 404");
        }
    }
}
