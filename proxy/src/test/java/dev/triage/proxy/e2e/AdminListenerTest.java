package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.Triage;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admin API on an address of its own ({@code --admin-listen}): there alone, and nothing else passes through there. */
class AdminListenerTest {

    @Test
    void theAdminApiMovesToItsOwnAddressAndTheClientsKeepTheirs() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--admin-listen", "127.0.0.1:0")) {
            int adminPort = triage.triage().adminAddress().orElseThrow().getPort();

            assertEquals(404, triage.get("/triage/queue").statusCode(), "the client port no longer has the admin API");
            assertEquals(404, triage.get("/triage/config").statusCode());
            assertEquals(200, triage.get("/healthz").statusCode());
            assertEquals(200, triage.get("/readyz").statusCode());
            assertEquals(200, triage.get("/metrics").statusCode());
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("scheduled", 3, false)).statusCode());
            assertEquals(200, triage.get("/v1/models").statusCode(), "passed through as before");

            HttpResponse<String> queue = get(triage, adminPort, "/triage/queue");
            assertEquals(200, queue.statusCode());
            assertTrue(queue.body().contains("\"backends\""), queue.body());
            assertTrue(get(triage, adminPort, "/triage/config").body().contains("\"admin-listen\""));
            assertEquals(200, get(triage, adminPort, "/metrics").statusCode());
            assertEquals(200, get(triage, adminPort, "/healthz").statusCode());

            int forwarded = backend.requestHeaders().size();
            assertEquals(404, get(triage, adminPort, "/v1/models").statusCode(), "the admin port passes nothing through");
            HttpResponse<String> chat = triage.client().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort
                    + "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(ChatRequests.chat("no", 3, false)))
                    .header("content-type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, chat.statusCode(), "nor schedules anything");
            assertEquals(forwarded, backend.requestHeaders().size());
        }
    }

    @Test
    void anAdminAddressInUseFailsTheStartNamingIt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            IllegalStateException failure = assertThrows(IllegalStateException.class, () -> Triage.start(ConfigLoader.load(
                    new String[] {"--listen", "127.0.0.1:0", "--estimator", "baseline", "--admin-listen",
                            "127.0.0.1:" + taken.getLocalPort()}, Map.of())));
            assertTrue(failure.getMessage().startsWith("admin-listen 127.0.0.1:" + taken.getLocalPort() + ": "),
                    failure.getMessage());
        }
    }

    private static HttpResponse<String> get(RunningTriage triage, int port, String path) throws Exception {
        return triage.client().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
