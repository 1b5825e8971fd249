package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM to the packaged jar, run as its own process, with one request in flight and one queued:
 * the queued one gets a 503, the one in flight finishes, and the process exits 0.
 */
class GracefulShutdownIT {

    private static final Pattern LISTENING = Pattern.compile("listening on /127\\.0\\.0\\.1:(\\d+)");

    @Test
    void sigtermDrainsInFlightRequestsRefusesQueuedOnesAndExitsZero() throws Exception {
        Path jar = Path.of("target", "triage.jar");
        assertTrue(Files.isRegularFile(jar), "the packaged jar " + jar.toAbsolutePath());
        String java = ProcessHandle.current().info().command().orElse("java");
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(10))) {
            Process triage = new ProcessBuilder(java, "-jar", jar.toString(), "--listen", "127.0.0.1:0",
                    "--backend", backend.url(), "--shutdown-grace", "20s")
                    .redirectErrorStream(true).start();
            List<String> output = new CopyOnWriteArrayList<>();
            CompletableFuture<Integer> port = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(triage.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = lines.readLine()) != null) {
                        output.add(line);
                        Matcher m = LISTENING.matcher(line);
                        if (m.find()) {
                            port.complete(Integer.parseInt(m.group(1)));
                        }
                    }
                } catch (IOException e) {
                    port.completeExceptionally(e);
                }
            });
            reader.start();
            try {
                URI base = URI.create("http://127.0.0.1:" + port.get(30, TimeUnit.SECONDS));
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                CompletableFuture<HttpResponse<String>> inFlight = client.sendAsync(post(base, "in flight [held]", 150),
                        HttpResponse.BodyHandlers.ofString());
                Await.until("the first request runs", () -> backend.started().contains("in flight [held]"));
                CompletableFuture<HttpResponse<String>> queued = client.sendAsync(post(base, "queued", 5),
                        HttpResponse.BodyHandlers.ofString());
                Await.until("the second request waits", () -> waiting(client, base) == 1);

                // SIGTERM. Process.destroy() would also close our ends of its pipes and lose its last lines.
                triage.toHandle().destroy();

                HttpResponse<String> refused = queued.get(30, TimeUnit.SECONDS);
                assertEquals(503, refused.statusCode());
                assertTrue(refused.body().contains("\"code\":\"shutting_down\""), refused.body());
                backend.releaseHeld(); // the request in flight finishes while Triage drains
                HttpResponse<String> finished = inFlight.get(30, TimeUnit.SECONDS);
                assertEquals(200, finished.statusCode());
                assertTrue(finished.body().contains("\"completion_tokens\":150"), finished.body());
                assertTrue(triage.waitFor(30, TimeUnit.SECONDS), "the process exits");
                assertEquals(0, triage.exitValue(), String.join("\n", output));
                assertThrows(ConnectException.class, () -> client.send(post(base, "late", 1), HttpResponse.BodyHandlers.ofString()));
                reader.join(5_000);
                assertTrue(output.stream().anyMatch(line -> line.contains("outcome=rejected reason=shutting_down")),
                        String.join("\n", output));
            } finally {
                triage.destroyForcibly();
            }
        }
    }

    private static HttpRequest post(URI base, String prompt, int tokens) {
        return HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(ChatRequests.chat(prompt, tokens, false))).build();
    }

    private static int waiting(HttpClient client, URI base) {
        try {
            String view = client.send(HttpRequest.newBuilder(base.resolve("/triage/queue")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return new ObjectMapper().readTree(view).path("backends").get(0).path("waiting").size();
        } catch (Exception e) {
            return -1;
        }
    }
}
