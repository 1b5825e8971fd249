package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.features.Prompt;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.HeldEstimator;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With {@code --forward-priority}, the backend receives the scheduling rank in {@code priority}: the
 * client's own priority above the expected answer tokens; without it, the body as the client sent it.
 */
class ForwardPriorityTest {

    private static final String QUEUED = "{\"model\":\"fake\",\"priority\":2,\"messages\":[{\"role\":\"user\",\"content\":\"queued\"}]}";

    @Test
    void aQueuedRequestArrivesWithItsClientPriorityAboveItsExpectedTokens() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start(HeldEstimator.<Prompt>free("fixed", 120), "--backend", backend.url(),
                        "--forward-priority", "true", "--online-learning", "false")) {
            sendBusyThenQueued(backend, triage);

            JsonNode busy = backend.requestBodies().get(0);
            JsonNode queued = backend.requestBodies().get(1);
            assertEquals("busy [held]", busy.path("messages").get(0).path("content").asText());
            assertEquals(0, busy.path("priority").asLong(-1), "sent to a free slot before it was sized: first of its client priority");
            assertEquals(2L * (1L << 32) + 120, queued.path("priority").asLong(), queued.toString());
            assertEquals("queued", queued.path("messages").get(0).path("content").asText(), "the rest of the body unchanged");
        }
    }

    @Test
    void withoutTheFlagTheBodyIsTheClients() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start(HeldEstimator.<Prompt>free("fixed", 120), "--backend", backend.url())) {
            sendBusyThenQueued(backend, triage);

            assertFalse(backend.requestBodies().get(0).has("priority"));
            assertEquals(2, backend.requestBodies().get(1).path("priority").asLong());
        }
    }

    /** A request that holds the only slot, then one that waits for it; both answered. */
    private static void sendBusyThenQueued(FakeOpenAiBackend backend, RunningTriage triage) throws Exception {
        CompletableFuture<HttpResponse<String>> busy = triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
        Await.until("the busy request reaches the backend", () -> backend.started().contains("busy [held]"));
        CompletableFuture<HttpResponse<String>> queued = triage.postAsync("/v1/chat/completions", QUEUED);
        Await.until("the second request is queued", () -> triage.chatQueue().waitingCount() == 1);
        backend.releaseHeld();
        assertEquals(200, busy.get(60, TimeUnit.SECONDS).statusCode());
        HttpResponse<String> answer = queued.get(60, TimeUnit.SECONDS);
        assertEquals(200, answer.statusCode(), answer.body());
    }
}
