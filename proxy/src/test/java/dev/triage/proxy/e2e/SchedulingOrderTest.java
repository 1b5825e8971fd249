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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Clairvoyant's ordering check: while a serial backend is busy, 4 long and 4 short requests arrive
 * in a burst. Under sjf every short one completes before any long one; under fcfs they complete in
 * arrival order.
 */
class SchedulingOrderTest {

    private static final List<String> BURST = List.of("long-1", "short-1", "long-2", "short-2", "long-3", "short-3",
            "long-4", "short-4");

    @Test
    void sjfFinishesEveryShortRequestBeforeAnyLongOne() throws Exception {
        Burst burst = runBurst("sjf");
        assertEquals(List.of("busy [held]", "short-1", "short-2", "short-3", "short-4", "long-1", "long-2", "long-3", "long-4"),
                burst.finished());
        // Each was told its place in line as it arrived: the k-th short one behind k - 1 short ones, the
        // k-th long one behind every earlier request of the burst.
        assertEquals("0", burst.header("busy", "x-triage-queue-position"), "it found the slot free");
        for (int k = 1; k <= 4; k++) {
            assertEquals(String.valueOf(k), burst.header("short-" + k, "x-triage-queue-position"));
            assertEquals(String.valueOf(2 * k - 1), burst.header("long-" + k, "x-triage-queue-position"));
        }
        long shortWait = Long.parseLong(burst.header("short-1", "x-triage-expected-wait-ms"));
        long longWait = Long.parseLong(burst.header("long-4", "x-triage-expected-wait-ms"));
        assertTrue(longWait > shortWait, shortWait + " ms, then " + longWait + " ms");
    }

    @Test
    void fcfsFinishesInArrivalOrder() throws Exception {
        List<String> order = runBurst("fcfs").finished();
        List<String> expected = new ArrayList<>(List.of("busy [held]"));
        expected.addAll(BURST);
        assertEquals(expected, order);
    }

    @Test
    void hrrnAlsoLetsShortRequestsPassWhenLongOnesHaveNotWaitedLong() throws Exception {
        List<String> order = runBurst("hrrn").finished();
        assertEquals("short-1", order.get(1));
        assertEquals("long-4", order.get(order.size() - 1));
    }

    /** The backend's finishing order, and each request's response by name. */
    private record Burst(List<String> finished, Map<String, HttpResponse<String>> responses) {
        String header(String request, String name) {
            return responses.get(request).headers().firstValue(name).orElseThrow(() -> new AssertionError(request + ": no " + name));
        }
    }

    /** Sends the busy request, then the burst one by one into the queue. */
    private static Burst runBurst(String policy) throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--policy", policy,
                        "--starvation-timeout", "off")) {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            // Held until the whole burst is queued, one request at a time, however long that takes on a loaded machine.
            responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false)));
            Await.until("the busy request reaches the backend", () -> backend.started().contains("busy [held]"));
            for (int i = 0; i < BURST.size(); i++) {
                String name = BURST.get(i);
                int maxTokens = name.startsWith("long") ? 60 : 5;
                responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat(name, maxTokens, false)));
                // Arrival order must be the order above, so each request is queued before the next is sent.
                triage.awaitWaiting(i + 1);
            }
            backend.releaseHeld();
            Map<String, HttpResponse<String>> byName = new HashMap<>();
            for (int i = 0; i < responses.size(); i++) {
                HttpResponse<String> response = responses.get(i).get(30, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode());
                byName.put(i == 0 ? "busy" : BURST.get(i - 1), response);
            }
            return new Burst(backend.finished(), byName);
        }
    }
}
