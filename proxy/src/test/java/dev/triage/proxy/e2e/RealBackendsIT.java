package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.features.audio.AudioFixtures;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.MultipartForm;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RealBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Triage in front of the real servers of {@code ../shared/backends}: llama.cpp's {@code llama-server}
 * (one slot, a random model that always generates exactly {@code max_tokens}) and whisper.cpp's
 * {@code whisper-server} (one request at a time, time stepping with each 30 s of audio). Skipped where
 * they are not installed. Under {@code laps} with {@code --preemption llama.cpp}, llama-server continues
 * a paused answer from its trailing assistant message.
 */
class RealBackendsIT {

    @Test
    void llamaServerFinishesShortRequestsFirstUnderSjfAndStreams() throws Exception {
        try (RealBackend llama = RealBackend.start("llama-server", "/health", "-m", "/models/rand-60m.gguf", "-t", "2",
                "-c", "4096", "--parallel", "1");
                RunningTriage triage = RunningTriage.start("--backend", llama.url(), "--starvation-timeout", "off")) {
            HttpResponse<InputStream> stream = triage.client().send(
                    triage.postRequest("/v1/chat/completions", ChatRequests.chat("stream", 20, true)),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, stream.statusCode());
            int events = 0;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("data: {")) {
                        events++;
                    }
                }
            }
            assertTrue(events >= 20, events + " SSE events for 20 tokens");

            Map<String, Long> finishedAt = new ConcurrentHashMap<>();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            // The client can see the stream end before Triage has freed its slot; a busy request sent
            // then would queue behind the burst instead of holding the backend.
            Await.until("the stream's slot is free", () -> triage.chatQueue().busySlots() == 0);
            responses.add(send(triage, "busy", 120, finishedAt));
            Await.until("busy runs", () -> triage.chatQueue().busySlots() == 1);
            List<String> burst = List.of("long-1", "short-1", "long-2", "short-2", "long-3", "short-3");
            for (int i = 0; i < burst.size(); i++) {
                String name = burst.get(i);
                responses.add(send(triage, name, name.startsWith("long") ? 100 : 8, finishedAt));
                triage.awaitWaiting(i + 1);
            }
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(5, TimeUnit.MINUTES).statusCode());
            }
            long lastShort = finishedAt.entrySet().stream().filter(e -> e.getKey().startsWith("short"))
                    .mapToLong(Map.Entry::getValue).max().orElseThrow();
            long firstLong = finishedAt.entrySet().stream().filter(e -> e.getKey().startsWith("long"))
                    .mapToLong(Map.Entry::getValue).min().orElseThrow();
            assertTrue(lastShort < firstLong, "every short request finished before any long one: " + finishedAt);
        }
    }

    @ParameterizedTest
    @EnumSource(value = PreemptionDialect.class, names = {"LLAMA_CPP", "LLAMA_CPP_TOKEN_IDS"})
    void llamaServerContinuesAStreamThatLapsPaused(PreemptionDialect dialect) throws Exception {
        // A spare slot, as the README advises, so the paused request's cache can survive its pause.
        try (RealBackend llama = RealBackend.start("llama-server", "/health", "-m", "/models/rand-60m.gguf", "-t", "2",
                "-c", "4096", "--parallel", "2");
                RunningTriage triage = RunningTriage.start("--backend", llama.url(), "--policy", "laps",
                        "--preemption", dialect.label(), "--starvation-timeout", "off",
                        "--laps", "levels=2,first-level=100ms,window-tokens=2,preemptive-levels=2,max-preemptions=1")) {
            // The short request comes once the long one has streamed a few dozen tokens: a pause with
            // an answer so far to send back.
            ByteArrayOutputStream streamed = new ByteArrayOutputStream();
            CompletableFuture<HttpResponse<Void>> paused = triage.client().sendAsync(
                    triage.postRequest("/v1/chat/completions", PreemptionTest.longChat(200)),
                    HttpResponse.BodyHandlers.ofByteArrayConsumer(bytes -> bytes.ifPresent(chunk -> {
                        synchronized (streamed) {
                            streamed.writeBytes(chunk);
                        }
                    })));
            Await.until("the long request streams", () -> {
                synchronized (streamed) {
                    return streamed.toString(StandardCharsets.UTF_8).split("\"content\"").length > 40;
                }
            });
            HttpResponse<String> shortOne = triage.postAsync("/v1/chat/completions", ChatRequests.chat("short", 5, true))
                    .get(5, TimeUnit.MINUTES);
            assertEquals(200, paused.get(5, TimeUnit.MINUTES).statusCode());
            String longOne = streamed.toString(StandardCharsets.UTF_8);
            assertEquals(200, shortOne.statusCode());

            String metrics = triage.metricsAfter(2);
            assertEquals(1, PrometheusText.sum(metrics, "triage_preemptions_total", Map.of("backend", "chat")), "paused once");
            assertEquals(1, PrometheusText.sum(metrics, "triage_resumes_total", Map.of("backend", "chat")), "resumed once");
            List<JsonNode> events = PreemptionTest.events(longOne);
            Set<String> ids = new HashSet<>();
            int roles = 0;
            int finishes = 0;
            int tokens = 0;
            for (JsonNode event : events) {
                ids.add(event.path("id").asText());
                for (JsonNode choice : event.path("choices")) {
                    roles += choice.path("delta").has("role") ? 1 : 0;
                    finishes += choice.path("finish_reason").isNull() ? 0 : 1;
                    tokens += choice.path("delta").path("content").asText("").isEmpty() ? 0 : 1;
                }
            }
            assertEquals(1, ids.size(), "one id: " + ids);
            assertEquals(1, roles, "one role delta");
            assertEquals(1, finishes, "one finish reason");
            // The random model generates exactly max_tokens, so the two runs' 200 mean the continuation asked
            // for the rest only. A few of its tokens stream no text (a straight 200-token run has 196-200 text
            // chunks), so the chunks can only be bounded.
            JsonNode last = events.get(events.size() - 1);
            assertEquals(200, last.path("usage").path("completion_tokens").asInt(), "usage counts both runs");
            assertTrue(tokens > 100 && tokens <= 200, tokens + " text chunks for 200 tokens");
            if (dialect == PreemptionDialect.LLAMA_CPP_TOKEN_IDS) {
                // The resume sent the answer back as the tokens it was generated as, so the server found
                // them in its cache: its own timings of the resumed run say how much it read again.
                assertTrue(last.path("timings").path("prompt_n").asInt(99) <= 2, "read again: " + last.path("timings"));
            }
        }
    }

    @Test
    void whisperServerTranscribesShortClipsFirstUnderSjf() throws Exception {
        try (RealBackend whisper = RealBackend.start("whisper-server", "/", "-m", "/models/empty-tiny.en.bin", "-t", "2",
                "--inference-path", "/v1/audio/transcriptions");
                RunningTriage triage = RunningTriage.start("--backend", whisper.url(), "--audio-backend", whisper.url(),
                        "--health-path", "/", "--starvation-timeout", "off")) {
            byte[] clip = AudioFixtures.named("pcm16-mono-16000.wav").bytes(); // 1.2 s of LibriSpeech at 16 kHz
            byte[] longClip = repeated(clip, 30); // 36 s: two of whisper's 30 s windows
            HttpResponse<String> one = transcribe(triage, "one.wav", clip).get(60, TimeUnit.SECONDS);
            assertEquals(200, one.statusCode());
            assertTrue(one.body().contains("\"text\""), one.body());

            Map<String, Long> finishedAt = new ConcurrentHashMap<>();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            Await.until("the first transcription's slot is free", () -> triage.triage().queues().get(1).busySlots() == 0);
            responses.add(timed(transcribe(triage, "busy.wav", longClip), "busy", finishedAt));
            Await.until("busy runs", () -> triage.triage().queues().get(1).busySlots() == 1);
            List<String> burst = List.of("long-1", "short-1", "long-2", "short-2");
            for (int i = 0; i < burst.size(); i++) {
                String name = burst.get(i);
                responses.add(timed(transcribe(triage, name + ".wav", name.startsWith("long") ? longClip : clip), name, finishedAt));
                RunningTriage.awaitWaiting(triage.triage().queues().get(1), i + 1);
            }
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(5, TimeUnit.MINUTES).statusCode());
            }
            assertTrue(Math.max(finishedAt.get("short-1"), finishedAt.get("short-2"))
                    < Math.min(finishedAt.get("long-1"), finishedAt.get("long-2")), finishedAt.toString());
        }
    }

    private static CompletableFuture<HttpResponse<String>> send(RunningTriage triage, String prompt, int tokens,
            Map<String, Long> finishedAt) {
        return timed(triage.postAsync("/v1/chat/completions", ChatRequests.chat(prompt, tokens, false)), prompt, finishedAt);
    }

    private static CompletableFuture<HttpResponse<String>> timed(CompletableFuture<HttpResponse<String>> response, String name,
            Map<String, Long> finishedAt) {
        return response.whenComplete((r, e) -> finishedAt.put(name, System.nanoTime()));
    }

    private static CompletableFuture<HttpResponse<String>> transcribe(RunningTriage triage, String name, byte[] audio) {
        return triage.postAsync("/v1/audio/transcriptions", MultipartForm.CONTENT_TYPE,
                new MultipartForm().field("model", "whisper-1").field("response_format", "json").file(name, audio).build());
    }

    /** A 16-bit PCM WAV with a 44-byte header whose samples are said {@code times} times over. */
    private static byte[] repeated(byte[] wav, int times) {
        int samples = ByteBuffer.wrap(wav, 40, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        ByteBuffer out = ByteBuffer.allocate(44 + samples * times).order(ByteOrder.LITTLE_ENDIAN);
        out.put(wav, 0, 44).putInt(4, out.capacity() - 8).putInt(40, samples * times);
        for (int i = 0; i < times; i++) {
            out.put(wav, 44, samples);
        }
        return out.array();
    }
}
