package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fair shares over real sockets: while a serial backend is busy, one tenant floods the queue, then
 * another sends a few requests of the same size ({@code flood-07}, {@code quiet-12}: prompts of one
 * length). Without fair shares they go in arrival order, the flood first; with them, the tenants take
 * turns (or turns by weight).
 */
class FairShareTest {

    private static final String FLOOD_KEY = "sk-flood-5be2d0c4a1";
    private static final String QUIET_KEY = "sk-quiet-93e7f06b2d";

    /** The finishing order after the busy request, each named by its tenant. */
    private static List<String> run(String header, String floodTenant, String quietTenant, int flood, int quiet,
            String... flags) throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2))) {
            // Sized by the prompt's length alone, and no learning that would cost the later ones anew: every
            // request of the test has the same expected seconds.
            List<String> args = new ArrayList<>(List.of("--backend", backend.url(), "--policy", "sjf", "--estimator", "baseline",
                    "--online-learning", "false"));
            args.addAll(List.of(flags));
            try (RunningTriage triage = RunningTriage.start(args.toArray(String[]::new))) {
                List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
                // Held until every request of the test is queued, one at a time.
                responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false)));
                Await.until("the busy request reaches the backend", () -> backend.started().contains("busy [held]"));
                int queued = 0;
                for (int i = 0; i < flood + quiet; i++) {
                    boolean flooding = i < flood;
                    String name = (flooding ? "flood-" : "quiet-") + String.format("%02d", i);
                    responses.add(send(triage, header, flooding ? floodTenant : quietTenant, name));
                    triage.awaitWaiting(++queued);
                }
                if (!header.equals("Authorization")) {
                    assertTrue(triage.get("/triage/queue").body().contains("\"tenant\":\"" + quietTenant + "\""));
                } else {
                    String queue = triage.get("/triage/queue").body();
                    assertFalse(queue.contains(FLOOD_KEY) || queue.contains(QUIET_KEY), queue);
                }
                backend.releaseHeld();
                for (CompletableFuture<HttpResponse<String>> response : responses) {
                    assertEquals(200, response.get(60, TimeUnit.SECONDS).statusCode());
                }
                String metrics = triage.metricsAfter(responses.size());
                assertFalse(metrics.contains(FLOOD_KEY) || metrics.contains(QUIET_KEY), "an API key in the metrics");
                if (List.of(flags).contains("tenant")) {
                    double served = PrometheusText.sum(metrics, "triage_tenant_served_seconds_total", Map.of());
                    assertTrue(served > 0, "served seconds counted: " + served);
                    assertEquals(flood + quiet + 1, PrometheusText.sum(metrics, "triage_tenant_dispatched_total", Map.of()));
                }
                return backend.finished().stream().skip(1).map(name -> name.replaceAll("-\\d+$", "")).toList();
            }
        }
    }

    private static CompletableFuture<HttpResponse<String>> send(RunningTriage triage, String header, String tenant,
            String name) {
        HttpRequest.Builder request = HttpRequest.newBuilder(triage.uri("/v1/chat/completions"))
                .timeout(Duration.ofMinutes(5)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ChatRequests.chat(name, 20, false)));
        request.header(header, header.equals("Authorization") ? "Bearer " + tenant : tenant);
        return triage.client().sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void withoutFairSharesTheFloodGoesFirst() throws Exception {
        List<String> order = run("Authorization", FLOOD_KEY, QUIET_KEY, 6, 3);
        assertEquals(List.of("flood", "flood", "flood", "flood", "flood", "flood", "quiet", "quiet", "quiet"), order);
    }

    @Test
    void tenantsByApiKeyTakeTurns() throws Exception {
        List<String> order = run("Authorization", FLOOD_KEY, QUIET_KEY, 6, 3, "--fair-share", "tenant");
        assertEquals(List.of("flood", "quiet", "flood", "quiet", "flood", "quiet", "flood", "flood", "flood"), order);
    }

    @Test
    void aHeavierTenantTakesTurnsByItsWeight() throws Exception {
        List<String> order = run("X-Team", "team-b", "team-a", 8, 8, "--fair-share", "tenant", "--tenant-header", "X-Team",
                "--tenant-weights", "team-a=3");
        long teamAFirst = order.subList(0, 8).stream().filter(tenant -> tenant.equals("quiet")).count();
        assertEquals(6, teamAFirst, "team-a's requests among the first 8 sent: " + order);
    }
}
