package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.relay.AnswerLengthRelay;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
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
            // The resumed request asks for 300 less the relay's count when it arrives. That count may have grown
            // since it was read (tokens the server sent before it saw the client leave), and llama-server now
            // and then sends two tokens in one event, so the rest comes in somewhat fewer events than
            // 300 - streamed; a relay that forgot the first stream would send about 300.
            assertTrue(events <= 300 - streamed && events >= 300 - streamed - 20, events + " events resumed after " + streamed);
        }
    }

    /**
     * Through Triage with the true lengths as the client's priority, the serial server finishes a
     * burst queued behind a long first answer shortest first: the order, not the times, is checked.
     */
    @Test
    void anOracleBurstThroughTriageServesShortRequestsFirst() throws Exception {
        try (RealBackend llama = RealBackend.start("llama-server", "/health", LLAMA);
                AnswerLengthRelay relay = AnswerLengthRelay.start(URI.create(llama.url()))) {
            // The blocker holds the server's one slot for seconds; the burst arrives after it, longest first.
            List<LoadRequest> requests = new ArrayList<>(List.of(
                    new LoadRequest(new WorkloadEntry("Write a long report.", 300, "long", "test"), 0)));
            List<Integer> burst = List.of(60, 50, 40, 4, 6, 8);
            for (int i = 0; i < burst.size(); i++) {
                int tokens = burst.get(i);
                requests.add(new LoadRequest(new WorkloadEntry("Question " + i + ".", tokens, tokens < 50 ? "short" : "long",
                        "test"), 0.3 + 0.03 * i));
            }
            List<LoadResult> results = LoadSession.run(relay, LoadVariant.parse("oracle-sjf", Duration.ZERO), requests, List.of(),
                    Optional.empty()).results();
            assertTrue(results.stream().allMatch(result -> result.status() == 200), results.toString());
            List<Integer> finished = IntStream.range(0, requests.size()).boxed()
                    .sorted(Comparator.comparingDouble(i -> requests.get(i).sendAtSeconds() + results.get(i).endToEndSeconds()))
                    .map(i -> requests.get(i).entry().answerTokens()).toList();
            assertEquals(List.of(300, 4, 6, 8, 40, 50, 60), finished);
        }
    }
}
