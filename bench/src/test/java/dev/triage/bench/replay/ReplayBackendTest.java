package dev.triage.bench.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.bench.PcmWav;
import dev.triage.bench.load.TranscriptionForm;
import dev.triage.bench.workload.AudioFile;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay backend over real loopback sockets, driven by the JDK's HTTP client. */
class ReplayBackendTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHORT_PROMPT = "What is the capital of France?";
    private static final String LONG_PROMPT = "Write a detailed essay on queueing theory.";
    private static final AnswerBook ANSWERS = AnswerBook.of(List.of(
            new WorkloadEntry(SHORT_PROMPT, 7, "short", "test"),
            new WorkloadEntry(LONG_PROMPT, 1500, "long", "test")));

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private ReplayBackend backend;
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void answersAKnownPromptWithItsRecordedLength() throws Exception {
        start(1, 0.005);
        JsonNode body = json(post("/v1/chat/completions", chat(SHORT_PROMPT, "")));
        assertEquals("chat.completion", body.path("object").asText());
        assertEquals(7, body.path("usage").path("completion_tokens").asInt());
        assertEquals(7, body.path("choices").get(0).path("message").path("content").asText().split(" ").length);
        assertEquals("stop", body.path("choices").get(0).path("finish_reason").asText());
    }

    @Test
    void maxTokensCutsAnAnswerShortAndSetsTheLengthOfAnUnknownPrompt() throws Exception {
        start(1, 0.002);
        JsonNode capped = json(post("/v1/chat/completions", chat(LONG_PROMPT, ", \"max_tokens\": 12")));
        assertEquals(12, capped.path("usage").path("completion_tokens").asInt());
        assertEquals("length", capped.path("choices").get(0).path("finish_reason").asText());

        JsonNode unknownCapped = json(post("/v1/completions", "{\"prompt\": \"never seen\", \"max_tokens\": 9}"));
        assertEquals("text_completion", unknownCapped.path("object").asText());
        assertEquals(9, unknownCapped.path("usage").path("completion_tokens").asInt());

        JsonNode unknown = json(post("/v1/completions", "{\"prompt\": \"never seen either\"}"));
        assertEquals(20, unknown.path("usage").path("completion_tokens").asInt(), "the configured default");
        assertEquals("stop", unknown.path("choices").get(0).path("finish_reason").asText());
    }

    @Test
    void triageHeadersChangeNothing() throws Exception {
        start(1, 0.002);
        HttpRequest request = HttpRequest.newBuilder(uri("/v1/chat/completions"))
                .header("x-triage-estimate-tokens", "1").header("x-triage-policy", "sjf").header("x-triage-queue-ms", "5")
                .POST(HttpRequest.BodyPublishers.ofString(chat(SHORT_PROMPT, ""))).build();
        assertEquals(7, json(client.send(request, HttpResponse.BodyHandlers.ofString())).path("usage").path("completion_tokens").asInt());
    }

    @Test
    void streamsOneServerSentEventPerTokenThenDone() throws Exception {
        start(1, 0.002);
        HttpResponse<String> response = post("/v1/chat/completions", chat(SHORT_PROMPT, ", \"stream\": true, \"stream_options\": {\"include_usage\": true}"));
        assertEquals("text/event-stream", response.headers().firstValue("content-type").orElse(""));
        String[] events = response.body().split("\n\n");
        assertTrue(response.body().endsWith("\n\n"));
        for (String event : events) {
            assertTrue(event.startsWith("data: ") && !event.contains("\n"), "one data line per event: " + event);
        }
        assertEquals("data: [DONE]", events[events.length - 1]);
        JsonNode role = JSON.readTree(events[0].substring(6));
        assertEquals("assistant", role.path("choices").get(0).path("delta").path("role").asText());
        StringBuilder text = new StringBuilder();
        int contentEvents = 0;
        for (int i = 1; i < events.length - 1; i++) {
            JsonNode chunk = JSON.readTree(events[i].substring(6));
            assertEquals("chat.completion.chunk", chunk.path("object").asText());
            JsonNode choices = chunk.path("choices");
            if (choices.size() == 1 && choices.get(0).path("delta").has("content")) {
                text.append(choices.get(0).path("delta").path("content").asText());
                contentEvents++;
            }
        }
        assertEquals(7, contentEvents);
        assertEquals(AnswerText.text(7), text.toString().strip());
        JsonNode finish = JSON.readTree(events[events.length - 3].substring(6));
        assertEquals("stop", finish.path("choices").get(0).path("finish_reason").asText());
        JsonNode usage = JSON.readTree(events[events.length - 2].substring(6));
        assertEquals(7, usage.path("usage").path("completion_tokens").asInt());
    }

    @Test
    void ollamaChatStreamsOneJsonLinePerTokenByDefaultThenTheCounts() throws Exception {
        start(1, 0.002);
        HttpResponse<String> response = post("/api/chat", chat(SHORT_PROMPT, ""));
        assertEquals(200, response.statusCode());
        assertEquals("application/x-ndjson", response.headers().firstValue("content-type").orElse(""));
        assertTrue(response.body().endsWith("}\n"));
        String[] lines = response.body().split("\n");
        assertEquals(8, lines.length, "7 tokens, then the last line");
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 7; i++) {
            JsonNode line = JSON.readTree(lines[i]);
            assertFalse(line.path("done").asBoolean(true), lines[i]);
            assertEquals("test", line.path("model").asText());
            assertEquals("assistant", line.path("message").path("role").asText());
            text.append(line.path("message").path("content").asText());
        }
        assertEquals(AnswerText.text(7), text.toString().strip());
        JsonNode last = JSON.readTree(lines[7]);
        assertTrue(last.path("done").asBoolean());
        assertEquals("stop", last.path("done_reason").asText());
        assertEquals(7, last.path("eval_count").asInt());
        assertTrue(last.path("prompt_eval_count").asInt() > 0);
        assertEquals(Math.round(7 * 0.002 * 1e9), last.path("eval_duration").asLong());
    }

    @Test
    void ollamaGenerateAnswersInOneBodyWhenNotStreamedAndNumPredictCutsItShort() throws Exception {
        start(1, 0.002);
        HttpResponse<String> response = post("/api/generate", "{\"model\": \"m\", \"prompt\": " + JSON.writeValueAsString(LONG_PROMPT)
                + ", \"stream\": false, \"options\": {\"num_predict\": 5}}");
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("application/json"));
        JsonNode body = json(response);
        assertEquals(AnswerText.text(5), body.path("response").asText());
        assertTrue(body.path("done").asBoolean());
        assertEquals("length", body.path("done_reason").asText());
        assertEquals(5, body.path("eval_count").asInt());
        assertEquals("m", body.path("model").asText());

        HttpResponse<String> tags = client.send(HttpRequest.newBuilder(uri("/api/tags")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("replay", json(tags).path("models").get(0).path("name").asText());
        HttpResponse<String> bad = post("/api/generate", "[1]");
        assertEquals(400, bad.statusCode());
        assertEquals("body: expected a JSON object", json(bad).path("error").asText(), "Ollama's error format");
    }

    @Test
    void tokensArriveWhileTheAnswerIsStillBeingGeneratedAndAClientThatLeavesFreesTheSlot() throws Exception {
        // 1,500 tokens at 20 ms: half a minute of generation on the only slot.
        start(1, 0.02);
        long begin = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(uri("/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(chat(LONG_PROMPT, ", \"stream\": true"))).build();
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
            int contentEvents = 0;
            String line;
            while (contentEvents < 3 && (line = lines.readLine()) != null) {
                if (line.contains("\"content\":\" ")) {
                    contentEvents++;
                }
            }
            assertEquals(3, contentEvents);
        }
        double firstTokensAfter = (System.nanoTime() - begin) / 1e9;
        assertTrue(firstTokensAfter < 15, "the first tokens came " + firstTokensAfter + " s in, the answer takes 30 s");

        // The stream was closed after three tokens; had the generation run on, this would wait ~30 s.
        long second = System.nanoTime();
        assertEquals(7, json(post("/v1/chat/completions", chat(SHORT_PROMPT, ""))).path("usage").path("completion_tokens").asInt());
        double waited = (System.nanoTime() - second) / 1e9;
        assertTrue(waited < 15, "the next request waited " + waited + " s for the slot");
    }

    @Test
    void aClientThatLeavesBeforeAnAnswerInOneBodyFreesTheSlotToo() throws Exception {
        start(1, 0.02);
        String body = chat(LONG_PROMPT, "");
        try (Socket socket = new Socket("127.0.0.1", backend.port())) {
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
        }
        long begin = System.nanoTime();
        assertEquals(7, json(post("/v1/chat/completions", chat(SHORT_PROMPT, ""))).path("usage").path("completion_tokens").asInt());
        double waited = (System.nanoTime() - begin) / 1e9;
        assertTrue(waited < 15, "the next request waited " + waited + " s behind a 30 s answer nobody reads");
    }

    @Test
    void aSerialBackendMakesTheSecondRequestWaitForTheFirst() throws Exception {
        // 50 ms prefill + 7 x 50 ms = 0.4 s each, one at a time: the later finishes at least 0.8 s in.
        start(1, 0.05);
        long begin = System.nanoTime();
        List<CompletableFuture<Double>> finishes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            HttpRequest request = HttpRequest.newBuilder(uri("/v1/chat/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString(chat(SHORT_PROMPT, ""))).build();
            finishes.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .thenApply(response -> (System.nanoTime() - begin) / 1e9));
        }
        double first = Math.min(finishes.get(0).get(30, TimeUnit.SECONDS), finishes.get(1).get(30, TimeUnit.SECONDS));
        double last = Math.max(finishes.get(0).get(), finishes.get(1).get());
        assertTrue(first >= 0.4, "first finished at " + first + " s");
        assertTrue(last >= 0.8, "second finished at " + last + " s: it must wait for the first");
    }

    @Test
    void aBatchingBackendRunsRequestsTogether() throws Exception {
        // Four slots: four requests of 0.4 s each overlap, so all are done well before 4 x 0.4 s.
        start(4, 0.05);
        long begin = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            responses.add(client.sendAsync(HttpRequest.newBuilder(uri("/v1/chat/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString(chat(SHORT_PROMPT, ""))).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            assertEquals(7, json(response.get(30, TimeUnit.SECONDS)).path("usage").path("completion_tokens").asInt());
        }
        double elapsed = (System.nanoTime() - begin) / 1e9;
        assertTrue(elapsed >= 0.4, "a request takes at least its own 0.4 s: " + elapsed);
    }

    @Test
    void aTranscriptionsLengthFollowsTheUploadsSize() throws Exception {
        start(1, 0.002);
        // 64,000 bytes at 32,000 bytes/s: 2 s of speech, 3 tokens per second.
        JsonNode body = json(transcribe("speech.wav", new byte[64_000]));
        assertEquals(6, body.path("usage").path("output_tokens").asInt());
        assertEquals(AnswerText.text(6), body.path("text").asText());

        HttpResponse<String> noFile = post("/v1/audio/transcriptions", "{}");
        assertEquals(400, noFile.statusCode());
    }

    @Test
    void aKnownAudioFileIsAnsweredWithItsTranscriptsRecordedLengthWhateverItsName() throws Exception {
        Path clip = dir.resolve("two-seconds.wav");
        Files.write(clip, PcmWav.tone(2.0, 440, 16_000));
        AudioFile audio = AudioFile.read(clip);
        backend = ReplayBackend.start(ReplayBackendSettings.builder().speed(new ServiceTimeModel(0.01, 0.001))
                .answers(AnswerBook.of(List.of(new WorkloadEntry("Two seconds of a tone.", 41, "short", "test", Optional.of(audio)))))
                .build());
        assertEquals(41, json(transcribe("renamed.flac", Files.readAllBytes(clip))).path("usage").path("output_tokens").asInt());

        byte[] otherBytes = PcmWav.tone(2.0, 880, 16_000);
        int bySize = (int) Math.ceil(otherBytes.length / 32_000.0 * 3);
        assertEquals(bySize, json(transcribe("other.wav", otherBytes)).path("usage").path("output_tokens").asInt(),
                "an unknown upload of the same size keeps the size rule");
    }

    @Test
    void mistakesGetOpenAiStyleErrors() throws Exception {
        start(1, 0.002);
        HttpResponse<String> notJson = post("/v1/chat/completions", "{\"messages\": [");
        assertEquals(400, notJson.statusCode());
        assertEquals("invalid_request_error", json(notJson).path("error").path("type").asText());
        assertTrue(json(notJson).path("error").path("message").asText().startsWith("body: not JSON"));

        HttpResponse<String> badStream = post("/v1/chat/completions", chat(SHORT_PROMPT, ", \"stream\": \"yes\""));
        assertEquals(400, badStream.statusCode());
        assertEquals("stream", json(badStream).path("error").path("param").asText());

        assertEquals(404, post("/v1/embeddings", "{}").statusCode());
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(uri("/v1/chat/completions")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals("POST", get.headers().firstValue("allow").orElse(""));
        assertEquals(200, client.send(HttpRequest.newBuilder(uri("/v1/models")).GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        start(1, 0.01);
        String body = chat(SHORT_PROMPT, "");
        String twoRequests = "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body
                + "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", backend.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(twoRequests.getBytes(StandardCharsets.UTF_8));
            out.flush();
            String responses = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int chat = responses.indexOf("\"chat.completion\"");
            int health = responses.indexOf("{\"status\":\"ok\"}");
            assertTrue(chat > 0 && health > chat, responses);
        }
    }

    @Test
    void settingsAreCheckedWithTheKeyAndWhatIsExpected() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> ReplayBackendSettings.builder().slots(0).build());
        assertEquals("slots: 0 (expected: >= 1)", e.getMessage());
        var conflict = assertThrows(IllegalArgumentException.class, () -> AnswerBook.of(List.of(
                new WorkloadEntry("same", 1, "short", ""), new WorkloadEntry("same", 2, "short", ""))));
        assertTrue(conflict.getMessage().contains("expected: one length per prompt"));
        AudioFile audio = new AudioFile(Path.of("a.wav"), "00ff");
        var audioConflict = assertThrows(IllegalArgumentException.class, () -> AnswerBook.of(List.of(
                new WorkloadEntry("a", 1, "short", "", Optional.of(audio)), new WorkloadEntry("b", 2, "short", "", Optional.of(audio)))));
        assertTrue(audioConflict.getMessage().startsWith("audio file a.wav has answers of 1 and 2 tokens"), audioConflict.getMessage());
        assertFalse(ANSWERS.answerTokens("unknown").isPresent());
    }

    private void start(int slots, double secondsPerToken) throws InterruptedException {
        backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .answers(ANSWERS).slots(slots).speed(new ServiceTimeModel(0.05, secondsPerToken)).defaultAnswerTokens(20).build());
    }

    private URI uri(String path) {
        return URI.create(backend.uri() + path);
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> transcribe(String fileName, byte[] audio) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri("/v1/audio/transcriptions")).timeout(Duration.ofSeconds(60))
                .header("content-type", TranscriptionForm.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(TranscriptionForm.body("whisper-1", fileName, audio))).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String chat(String prompt, String extra) throws Exception {
        return "{\"model\": \"test\", \"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": "
                + JSON.writeValueAsString(prompt) + "}]" + extra + "}";
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }
}
