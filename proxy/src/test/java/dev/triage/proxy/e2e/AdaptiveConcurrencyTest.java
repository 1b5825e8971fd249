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
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code --max-concurrency auto} over real sockets: in front of a backend of 8 slots whose speed does
 * not fall as it runs more (every further request adds as much throughput as the first), the limit
 * climbs from where it starts, and the running proxy's slots, metric and queue view follow it.
 */
class AdaptiveConcurrencyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theLimitFoundSetsTheSlotsOfTheRunningProxy() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(8, Duration.ofMillis(20));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--max-concurrency", "auto:1..8",
                        "--estimator", "baseline")) {
            int start = triage.chatQueue().slots();
            assertEquals(3, start, "the geometric middle of 1..8");
            // 24 clients at once, so that requests always wait: a limiter learns only from a saturated backend.
            Semaphore clients = new Semaphore(24);
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < 4_000 && triage.chatQueue().slots() <= start; i++) {
                clients.acquire();
                CompletableFuture<HttpResponse<String>> response = triage.postAsync("/v1/chat/completions",
                        ChatRequests.chat("request " + i, 10, false));
                response.whenComplete((answer, error) -> clients.release());
                responses.add(response);
            }
            int found = triage.chatQueue().slots();
            assertTrue(found > start, "the limit stayed at " + found);
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(60, TimeUnit.SECONDS).statusCode());
            }
            Await.until("the queue view and the metric show the limit in force", () -> {
                try {
                    int slots = triage.chatQueue().slots();
                    JsonNode view = JSON.readTree(triage.get("/triage/queue").body());
                    double metric = PrometheusText.sum(triage.get("/metrics").body(), "triage_slots", Map.of("backend", "chat"));
                    return view.path("backends").path(0).path("slots").asInt() == slots && metric == slots
                            && slots == triage.chatQueue().slots();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertTrue(triage.chatQueue().slots() <= 8, "limit " + triage.chatQueue().slots());
        }
    }
}
