package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.CapturedErr;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.SocketException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DisconnectTest {

    @Test
    void aClientThatLeavesWhileQueuedIsNeverSentAndItsWaitIsLogged() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url());
                CapturedErr log = new CapturedErr()) {
            CompletableFuture<HttpResponse<String>> busy =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
            Await.until("busy reaches the backend", () -> backend.started().contains("busy [held]"));
            try (RawClient leaving = new RawClient(triage.port())) {
                leaving.post("/v1/chat/completions", ChatRequests.chat("gone", 5, false));
                Await.until("gone is queued", () -> triage.chatQueue().waitingCount() == 1);
            }
            Await.until("gone is withdrawn", () -> triage.chatQueue().waitingCount() == 0);
            backend.releaseHeld();
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("after", 5, false)).statusCode());
            assertFalse(backend.started().contains("gone"), backend.started().toString());
            Await.until("the slot is free again", () -> triage.chatQueue().busySlots() == 0);
            Await.until("the departed request's line", () -> log.text().contains("outcome=client_gone"));
            String line = log.text().lines().filter(l -> l.contains("outcome=client_gone")).findFirst().orElseThrow();
            assertTrue(line.matches(".* queue_ms=\\d+\\.\\d .*"), "the wait is in the log: " + line);
        }
    }

    @Test
    void aClientThatLeavesMidStreamClosesTheBackendConnectionAndFreesTheSlot() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(5));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            try (RawClient leaving = new RawClient(triage.port())) {
                leaving.post("/v1/chat/completions", ChatRequests.chat("long stream", 4000, true));
                leaving.readLineStartingWith("data:");
            }
            // 4000 tokens at 5 ms would take 20 s: the backend must see its connection close long before.
            Await.until("the backend notices the closed connection", Duration.ofSeconds(10),
                    () -> backend.aborted().contains("long stream"));
            HttpResponse<String> next = triage.post("/v1/chat/completions", ChatRequests.chat("next", 5, false));
            assertEquals(200, next.statusCode());
            Await.until("the slot is free again", () -> triage.chatQueue().busySlots() == 0);
        }
    }

    @Test
    void aClientThatStopsReadingAStreamIsDisconnectedAndItsSlotFreed() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--client-write-timeout", "1s")) {
            try (RawClient stalled = new RawClient(triage.port(), 4096)) {
                // Up to 160 MB of events: far more than the sockets between Triage and the client buffer
                // (about 2 MB here, which the relay takes seconds to fill under the paranoid leak detector).
                stalled.post("/v1/chat/completions", ChatRequests.chat("never read [bulky]", 10_000, true));
                stalled.readLineStartingWith("HTTP/1.1 200");
                Await.until("the backend connection is closed", Duration.ofSeconds(90),
                        () -> backend.aborted().contains("never read [bulky]"));
                Await.until("the slot is free again", () -> triage.chatQueue().busySlots() == 0);
                assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("next", 5, false)).statusCode());
                // reset, not closed: what the sockets still held for it is dropped rather than trickled to it
                assertThrows(SocketException.class, stalled::readToEnd);
            }
            assertEquals(1.0, PrometheusText.sum(triage.metricsAfter(2), "triage_request_seconds_count",
                    Map.of("outcome", "client_gone")));
        }
    }

    @Test
    void aPipelinedRequestDroppedBehindADepartedClientIsLogged() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(20));
                RunningTriage triage = RunningTriage.start("--backend", backend.url());
                CapturedErr log = new CapturedErr()) {
            try (RawClient leaving = new RawClient(triage.port())) {
                // In one write, so that Triage reads both requests at once. One read on its own would hold the second and
                // pause reading until the first is answered, and a client that leaves a request that is not streamed is
                // then noticed only when its answer is written, 10 s on.
                leaving.send(RawClient.request("/v1/chat/completions", ChatRequests.chat("first", 500, false))
                        + "GET /v1/models?all HTTP/1.1\r\nhost: triage\r\n\r\n");
                Await.until("first reaches the backend", () -> backend.started().contains("first"));
            }
            Await.until("a line names the dropped request",
                    () -> log.text().contains("with 1 pipelined request unanswered: GET /v1/models"));
        }
    }
}
