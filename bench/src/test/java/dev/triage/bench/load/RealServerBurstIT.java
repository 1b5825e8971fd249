package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.relay.AnswerLengthRelay;
import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.RealBackend;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The real-server burst against llama.cpp's {@code llama-server} of {@code ../shared/backends} (one
 * slot, a random model that generates exactly what it is asked for). Skipped where it is not installed.
 */
class RealServerBurstIT {

    private static final String[] LLAMA = {"-m", "/models/rand-60m.gguf", "-t", "1", "-c", "4096", "--parallel", "1"};

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theServerGeneratesWhatTheRelaySaysAndAResumedStreamGetsOnlyTheRest() throws Exception {
        try (RealBackend llama = RealBackend.start("llama-server", "/health", LLAMA);
                AnswerLengthRelay relay = AnswerLengthRelay.start(URI.create(llama.url()))) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(relay.url() + "/v1/chat/completions"))
                    .header("content-type", "application/json").header(AnswerLengthRelay.ANSWER_TOKENS, "300")
                    .header(AnswerLengthRelay.REQUEST_ID, "paused")
                    .POST(HttpRequest.BodyPublishers.ofString(LoadGenerator.chatBody(
                            new WorkloadEntry("Tell me about rivers.", 300, "medium", "test"), false).toString()))
                    .build();
            HttpResponse<InputStream> first = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            int read = 0;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(first.body(), StandardCharsets.UTF_8))) {
                while (read < 20) {
                    read += lines.readLine().contains("\"content\":\"") ? 1 : 0;
                }
            }
            // The relay closes the server's connection when the client leaves, and the server stops generating.
            Await.until("llama-server's slot is idle again", () -> {
                try {
                    return client.send(HttpRequest.newBuilder(URI.create(llama.url() + "/slots")).build(),
                            HttpResponse.BodyHandlers.ofString()).body().contains("\"is_processing\":false");
                } catch (Exception e) {
                    return false;
                }
            });
            int streamed = relay.streamedTokens("paused");
            assertTrue(streamed >= 20 && streamed < 300, streamed + " of 300 tokens before the client left");
            HttpResponse<String> rest = client.send(request, HttpResponse.BodyHandlers.ofString());
            long events = rest.body().lines().filter(line -> line.contains("\"content\":\"")).count();
            assertEquals(300 - streamed, events, "the resumed request asks only for the rest");
            Await.until("all 300 counted", () -> {
                try {
                    return relay.streamedTokens("paused") == 300;
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
        }
    }

    @Test
    void anOracleBurstThroughTriageServesShortRequestsFirst() throws Exception {
        try (RealBackend llama = RealBackend.start("llama-server", "/health", LLAMA)) {
            List<WorkloadEntry> workload = List.of(new WorkloadEntry("Say hi.", 4, "short", "test"),
                    new WorkloadEntry("Write an essay.", 150, "long", "test"), new WorkloadEntry("Say yes.", 4, "short", "test"),
                    new WorkloadEntry("Write a story.", 150, "long", "test"), new WorkloadEntry("Say no.", 4, "short", "test"),
                    new WorkloadEntry("Write a poem.", 150, "long", "test"));
            BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.ServerSettings(workload,
                    List.of(LoadVariant.parse("fcfs", Duration.ZERO), LoadVariant.parse("oracle-sjf", Duration.ZERO)), 1,
                    URI.create(llama.url()), List.of()));
            double fcfs = result.seconds("fcfs", "short", Statistic.P50).orElseThrow();
            double oracle = result.seconds("oracle-sjf", "short", Statistic.P50).orElseThrow();
            assertTrue(oracle < fcfs / 2, "oracle short P50 " + oracle + " s vs fcfs " + fcfs + " s");
        }
    }
}
