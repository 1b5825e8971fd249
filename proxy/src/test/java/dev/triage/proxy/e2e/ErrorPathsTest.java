package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.CapturedErr;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every error Triage answers itself, each followed by a request that succeeds. */
class ErrorPathsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode error(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body()).path("error");
    }

    private static void assertServes(RunningTriage triage, String prompt) throws Exception {
        HttpResponse<String> ok = triage.post("/v1/chat/completions", ChatRequests.chat(prompt, 3, false));
        assertEquals(200, ok.statusCode(), ok.body());
    }

    @Test
    void malformedJsonIs400AndNothingIsForwarded() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<String> bad = triage.post("/v1/chat/completions", "{\"messages\": [");
            assertEquals(400, bad.statusCode());
            assertEquals("invalid_request_error", error(bad).path("type").asText());
            assertEquals("invalid_request", error(bad).path("code").asText());
            assertTrue(error(bad).path("message").asText().startsWith("the body is not valid JSON"), bad.body());
            assertEquals("false", bad.headers().firstValue("x-should-retry").orElseThrow(), "the same body fails again");
            HttpResponse<String> badOllama = triage.post("/api/chat", "[1, 2]");
            assertEquals(400, badOllama.statusCode());
            // Ollama's own API answers errors in Ollama's shape, whose clients show "error" as the message.
            assertTrue(JSON.readTree(badOllama.body()).path("error").isTextual(), badOllama.body());
            assertEquals("invalid_request", JSON.readTree(badOllama.body()).path("code").asText());
            assertEquals("false", badOllama.headers().firstValue("x-should-retry").orElseThrow());
            assertEquals(400, triage.post("/v1/chat/completions", "{\"priority\": \"high\"}").statusCode());
            assertTrue(backend.requestHeaders().isEmpty(), "nothing reached the backend");
            assertServes(triage, "fine");
        }
    }

    @Test
    void oversizedBodyIs413() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--max-body", "1KB")) {
            HttpResponse<String> big = triage.post("/v1/chat/completions", ChatRequests.chat("x".repeat(4000), 3, false));
            assertEquals(413, big.statusCode());
            assertEquals("request_too_large", error(big).path("code").asText());
            assertEquals("false", big.headers().firstValue("x-should-retry").orElseThrow());
            // Chunked, so the limit is only found while the body arrives.
            try (RawClient raw = new RawClient(triage.port())) {
                raw.send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ntransfer-encoding: chunked\r\n\r\n"
                        + "400\r\n" + "y".repeat(1024) + "\r\n" + "400\r\n" + "y".repeat(1024) + "\r\n");
                assertEquals("HTTP/1.1 413 Request Entity Too Large", raw.readLine());
            }
            // Asked before the body is sent, the answer is final and ends the connection: the client sends no body,
            // and its next request must not be read as the body Triage would drop.
            try (RawClient raw = new RawClient(triage.port())) {
                raw.send("POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                        + "content-length: 5000\r\nexpect: 100-continue\r\n\r\n");
                assertEquals("HTTP/1.1 413 Request Entity Too Large", raw.readLine());
                assertEquals("connection: close", raw.readLineStartingWith("connection:"));
                raw.readToEnd();
            }
            // A big upload the client keeps sending still gets its answer, not a reset.
            HttpResponse<String> huge = triage.post("/v1/chat/completions", ChatRequests.chat("z".repeat(8 << 20), 3, false));
            assertEquals(413, huge.statusCode());
            assertTrue(backend.requestHeaders().isEmpty());
            assertServes(triage, "small");
        }
    }

    @Test
    void fullQueueIs429WithRetryAfter() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--max-queue", "1")) {
            CompletableFuture<HttpResponse<String>> busy =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
            Await.until("busy runs", () -> backend.started().contains("busy [held]"));
            CompletableFuture<HttpResponse<String>> waiting =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("waiting", 3, false));
            RunningTriage.awaitWaiting(triage.chatQueue(), 1); // taken in by the loop: the queue is full
            HttpResponse<String> refused = triage.post("/v1/chat/completions", ChatRequests.chat("refused", 3, false));
            assertEquals(429, refused.statusCode());
            assertEquals("queue_full", error(refused).path("code").asText());
            assertTrue(Long.parseLong(refused.headers().firstValue("retry-after").orElseThrow()) >= 1);
            assertTrue(refused.headers().firstValue("x-triage-estimate-tokens").isPresent());
            assertTrue(refused.headers().firstValue("x-should-retry").isEmpty(), "a full queue may drain: clients may retry");
            backend.releaseHeld();
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());
            assertEquals(200, waiting.get(30, TimeUnit.SECONDS).statusCode());
            assertServes(triage, "later");
            assertFalse(backend.started().contains("refused"));
        }
    }

    @Test
    void waitingBeyondMaxQueueWaitIs504() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(5));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--max-queue-wait", "200ms");
                CapturedErr log = new CapturedErr()) {
            CompletableFuture<HttpResponse<String>> busy =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
            Await.until("busy runs", () -> backend.started().contains("busy [held]"));
            HttpResponse<String> late = triage.post("/v1/chat/completions", ChatRequests.chat("late", 3, false));
            assertEquals(504, late.statusCode());
            assertEquals("queue_timeout", error(late).path("code").asText());
            assertEquals("false", late.headers().firstValue("x-should-retry").orElseThrow(),
                    "a retry would wait as long again, from the back of the queue");
            backend.releaseHeld();
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());
            assertServes(triage, "after");
            assertFalse(backend.started().contains("late"));
            String requestId = late.headers().firstValue("x-triage-request-id").orElseThrow();
            Await.until("the request's log line, written off the event loop", () -> log.text().contains("id=" + requestId));
            String line = log.text().lines().filter(l -> l.contains("id=" + requestId)).findFirst().orElseThrow();
            assertTrue(line.matches(".* queue_ms=\\d+\\.\\d .*outcome=rejected reason=queue_timeout.*"),
                    "the wait is in the log: " + line);
        }
    }

    @Test
    void unreachableBackendIs502AndFreesTheSlot() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        try (RunningTriage triage = RunningTriage.start("--backend", "http://127.0.0.1:" + closedPort)) {
            for (int attempt = 0; attempt < 3; attempt++) {
                // With one slot, a leaked slot would leave the second attempt waiting forever.
                HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.chat("hello", 3, false));
                assertEquals(502, response.statusCode());
                assertEquals("backend_unreachable", error(response).path("code").asText());
                assertTrue(response.headers().firstValue("x-should-retry").isEmpty(), "a backend may come back");
            }
            assertEquals(502, triage.get("/v1/models").statusCode());
            HttpResponse<String> tags = triage.get("/api/tags");
            assertEquals(502, tags.statusCode());
            assertTrue(JSON.readTree(tags.body()).path("error").asText().contains("unreachable"), tags.body());
            assertEquals(200, triage.get("/healthz").statusCode());
        }
    }

    @Test
    void aConnectionThatFailsAtOnceIsAnswered() throws Exception {
        // A name that does not resolve fails the connection while the call is still being started.
        try (RunningTriage triage = RunningTriage.start("--backend", "http://no-such-backend.invalid:9");
                CapturedErr log = new CapturedErr()) {
            for (String path : new String[] {"/v1/models", "/v1/chat/completions"}) {
                HttpResponse<String> response = path.equals("/v1/models") ? triage.get(path)
                        : triage.post(path, ChatRequests.chat("hello", 3, false));
                assertEquals(502, response.statusCode(), path);
                assertEquals("backend_unreachable", error(response).path("code").asText());
            }
            assertEquals(200, triage.get("/healthz").statusCode());
            assertFalse(log.text().contains("Exception"), log.text());
        }
    }

    @Test
    void silentBackendIs504() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--upstream-timeout", "1s",
                        "--max-concurrency", "2")) {
            HttpResponse<String> stalled = triage.post("/v1/chat/completions", ChatRequests.chat("[stall]", 3, false));
            assertEquals(504, stalled.statusCode());
            assertEquals("upstream_timeout", error(stalled).path("code").asText());
            assertEquals("false", stalled.headers().firstValue("x-should-retry").orElseThrow());
            Await.until("the slot is free again", () -> triage.chatQueue().busySlots() == 0);
            assertServes(triage, "responsive");
        }
    }

    @Test
    void backendDyingMidStreamCutsTheClientOffAndFreesTheSlot() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<InputStream> response = triage.client().send(
                    triage.postRequest("/v1/chat/completions", ChatRequests.chat("[die]", 50, true)),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            assertThrows(IOException.class, () -> {
                try (InputStream body = response.body()) {
                    body.readAllBytes();
                }
            }, "an incomplete chunked stream must end in an error, not look complete");
            Await.until("the slot is free again", () -> triage.chatQueue().busySlots() == 0);
            assertServes(triage, "healthy");
        }
    }

    /**
     * llama.cpp, OpenAI and Ollama report a failure that comes after the status line inside the stream:
     * the client gets it as sent, and the answer counts as broken off, not as a whole answer to learn from.
     */
    @Test
    void anErrorReportedInTheMiddleOfAStreamIsAnUpstreamErrorAndNotLearnedFrom() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<String> failed = triage.post("/v1/chat/completions", ChatRequests.chat("[fail]", 50, true));
            assertEquals(200, failed.statusCode());
            assertTrue(failed.body().contains("data: {\"error\":{\"code\":500"), failed.body());
            assertServes(triage, "whole");

            String metrics = triage.metricsAfter(2);
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "upstream_error")), metrics);
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("outcome", "ok")), metrics);
            assertEquals(1, PrometheusText.sum(metrics, "triage_actual_tokens_count", Map.of("backend", "chat")), metrics);
            triage.triage().learning().flush();
            assertEquals(1, PrometheusText.sum(triage.get("/metrics").body(), "triage_learned_requests_total",
                    Map.of("backend", "chat")), "only the whole answer is learned from");
        }
    }

    /** An interim answer is the backend's business: the client gets the real one, and the connection is used again. */
    @Test
    void anInterimAnswerFromTheBackendIsSkipped() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            for (String path : new String[] {"/v1/chat/completions", "/v1/embeddings"}) {
                HttpResponse<String> hinted = triage.postAsync(path, ChatRequests.chat("[hints]", 3, false)).get(30, TimeUnit.SECONDS);
                assertEquals(200, hinted.statusCode(), path);
                assertTrue(hinted.body().contains("\"completion_tokens\":3"), hinted.body());
            }
            assertServes(triage, "after");
        }
    }

    /** An HTTP/1.0 backend's close-delimited answer reaches an HTTP/1.1 client as HTTP/1.1, chunked. */
    @Test
    void anHttp10BackendIsRelayedInTheClientsVersion() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url());
                RawClient client = new RawClient(triage.port())) {
            client.post("/v1/chat/completions", ChatRequests.chat("[http10]", 3, false));
            assertTrue(client.readLineStartingWith("HTTP/").startsWith("HTTP/1.1 200"));
            assertEquals("transfer-encoding: chunked", client.readLineStartingWith("transfer-encoding:"));
            assertServes(triage, "after");
        }
    }

    @Test
    void malformedBackendResponseIs502() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.chat("[garbage]", 3, false));
            assertEquals(502, response.statusCode());
            assertEquals("backend_error", error(response).path("code").asText());
            assertServes(triage, "sane");
        }
    }

    @Test
    void backendErrorsPassThroughUnchanged() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.chat("[reject]", 3, false));
            assertEquals(422, response.statusCode());
            assertEquals(FakeOpenAiBackend.REJECTION, response.body());
            assertTrue(response.headers().firstValue("x-should-retry").isEmpty(), "the backend's own error is not Triage's to judge");
            assertEquals("3", response.headers().firstValue("x-triage-estimate-tokens").orElseThrow());
            assertServes(triage, "accepted");
        }
    }
}
