package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Closing Triage at once while requests are in flight and queued: every client gets an answer or a
 * closed connection, and nothing is left unreleased (the class's leak check).
 */
class ShutdownInProcessTest {

    @Test
    void closingWithRequestsQueuedAndInFlightLeavesNothingBehind() throws Exception {
        for (int round = 0; round < 3; round++) {
            try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(5))) {
                RunningTriage triage = RunningTriage.start("--backend", backend.url());
                List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
                responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false)));
                Await.until("busy runs", () -> backend.started().contains("busy [held]"));
                for (int i = 0; i < 5; i++) {
                    responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("queued " + i, 3, false)));
                }
                Await.until("all wait", () -> triage.chatQueue().waitingCount() == 5);
                triage.close();
                for (CompletableFuture<HttpResponse<String>> response : responses) {
                    try {
                        assertEquals(503, response.get(30, TimeUnit.SECONDS).statusCode());
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertTrue(e.getCause() instanceof java.io.IOException, e.toString()); // cut off: also an answer
                    }
                }
            }
        }
    }
}
