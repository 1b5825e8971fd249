package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.audio.AudioFixtures;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.MultipartForm;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Speech-to-text through the proxy to a serial transcription backend whose work grows with the
 * audio: real LibriSpeech speech, short clips (1.2 s) and long ones (the 2.1 s clip said six times).
 */
class AudioSchedulingTest {

    private static final byte[] SHORT = AudioFixtures.named("pcm16-mono-16000.wav").bytes();
    private static final byte[] LONG = repeated(AudioFixtures.named("pcm16-mono-8000-list-chunk.wav").bytes(), 6);
    private static final List<String> BURST = List.of("long-1.wav", "short-1.wav", "long-2.wav", "short-2.wav",
            "long-3.wav", "short-3.wav");

    @Test
    void sjfTranscribesTheShortClipsFirst() throws Exception {
        assertEquals(List.of("busy [held].wav", "short-1.wav", "short-2.wav", "short-3.wav", "long-1.wav", "long-2.wav", "long-3.wav"),
                runBurst("sjf"));
    }

    @Test
    void fcfsTranscribesInArrivalOrder() throws Exception {
        List<String> expected = new ArrayList<>(List.of("busy [held].wav"));
        expected.addAll(BURST);
        assertEquals(expected, runBurst("fcfs"));
    }

    private static List<String> runBurst(String policy) throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--policy", policy,
                        "--starvation-timeout", "off")) {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            // Holds the backend's one slot while the burst is queued, one at a time.
            responses.add(transcribe(triage, "busy [held].wav", SHORT, "en"));
            Await.until("the busy clip is being transcribed", () -> backend.started().contains("busy [held].wav"));
            for (int i = 0; i < BURST.size(); i++) {
                String name = BURST.get(i);
                responses.add(transcribe(triage, name, name.startsWith("long") ? LONG : SHORT, "en"));
                triage.awaitWaiting(i + 1);
            }
            backend.releaseHeld();
            List<String> names = new ArrayList<>(List.of("busy [held].wav"));
            names.addAll(BURST);
            for (int i = 0; i < responses.size(); i++) {
                HttpResponse<String> response = responses.get(i).get(30, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode());
                assertEquals(FakeOpenAiBackend.transcription(names.get(i)), response.body(), "the backend's bytes, unchanged");
                assertTrue(response.headers().firstValue("x-triage-estimate-tokens").isPresent());
            }
            return backend.finished();
        }
    }

    @Test
    void estimatesFollowDurationAndLanguage() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--speech-token-rates", "fr=5")) {
            // 1.2 s of speech: 2.9 tokens/s in English (the default), 5 in French as configured, English for the unknown.
            assertEquals("3", estimate(transcribe(triage, "a.wav", SHORT, "en")));
            assertEquals("6", estimate(transcribe(triage, "b.wav", SHORT, "french")));
            assertEquals("3", estimate(transcribe(triage, "c.wav", SHORT, "tlh")));
            // 6 × 2.085 s in Spanish: 12.51 s × 4.2.
            assertEquals("53", estimate(transcribe(triage, "d.wav", LONG, "es")));
        }
    }

    @Test
    void badUploadsAreForwardedOrRefusedAsDocumentedAndTheProxyKeepsServing() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            byte[] flac = AudioFixtures.named("speech.flac").bytes();
            byte[] random = new byte[48_000];
            new Random(3).nextBytes(random);
            // Forwarded, for the backend to judge: a truncated file, a misleading name, nothing, noise.
            assertEquals(200, transcribe(triage, "truncated.flac", Arrays.copyOf(flac, 1000), "en").get().statusCode());
            HttpResponse<String> misnamed = transcribe(triage, "speech.mp3", flac, "en").get();
            assertEquals(200, misnamed.statusCode());
            assertEquals("9", estimate(misnamed), "3.275 s of FLAC × 2.9, despite the .mp3 name (its size alone would say 6)");
            assertEquals(200, transcribe(triage, "empty.wav", new byte[0], "en").get().statusCode());
            HttpResponse<String> noise = transcribe(triage, "noise.wav", random, "en").get();
            assertEquals(200, noise.statusCode());
            assertEquals("9", estimate(noise), "48,000 bytes at the fallback 16,000 bytes/s: 3 s");
            assertEquals(List.of("truncated.flac", "speech.mp3", "empty.wav", "noise.wav"), backend.finished());
            // Refused: too large, no file, a broken boundary.
            HttpResponse<String> huge = triage.postAsync("/v1/audio/transcriptions", MultipartForm.CONTENT_TYPE,
                    new MultipartForm().file("huge.wav", new byte[30 * 1024 * 1024]).build()).get();
            assertEquals(413, huge.statusCode());
            HttpResponse<String> noFile = triage.postAsync("/v1/audio/transcriptions", MultipartForm.CONTENT_TYPE,
                    new MultipartForm().field("model", "whisper-1").build()).get();
            assertEquals(400, noFile.statusCode());
            assertTrue(noFile.body().contains("\"param\":\"file\""), noFile.body());
            HttpResponse<String> broken = triage.postAsync("/v1/audio/transcriptions",
                    "multipart/form-data; boundary=something-else", new MultipartForm().file("x.wav", SHORT).build()).get();
            assertEquals(400, broken.statusCode());
            HttpResponse<String> badPriority = triage.postAsync("/v1/audio/translations", MultipartForm.CONTENT_TYPE,
                    new MultipartForm().field("priority", "soon").file("x.wav", SHORT).build()).get();
            assertEquals(400, badPriority.statusCode());
            assertEquals(4, backend.finished().size(), "nothing refused reached the backend");
            // Still serving, both kinds.
            assertEquals(200, transcribe(triage, "after.wav", SHORT, "en").get().statusCode());
            assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("after", 2, false)).statusCode());
            String metrics = triage.metricsAfter(10);
            assertEquals(2, PrometheusText.sum(metrics, "triage_audio_unreadable_total", Map.of()),
                    "the empty file and the noise (a truncated FLAC still states its length in its header)");
            assertEquals(1, PrometheusText.sum(metrics, "triage_rejected_total", Map.of("reason", "request_too_large")));
            assertEquals(6, PrometheusText.sum(metrics, "triage_request_seconds_count",
                    Map.of("backend", "chat", "outcome", "ok")), "five transcriptions and one chat, on the shared backend");
        }
    }

    @Test
    void anAudioBackendOfItsOwnHasItsOwnQueueAndSlots() throws Exception {
        try (FakeOpenAiBackend chat = FakeOpenAiBackend.start(1, Duration.ofMillis(5));
                FakeOpenAiBackend audio = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", chat.url(), "--audio-backend", audio.url())) {
            CompletableFuture<HttpResponse<String>> busy =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
            Await.until("chat is busy", () -> chat.started().contains("busy [held]"));
            assertEquals(200, transcribe(triage, "meanwhile.wav", SHORT, "en").get(10, TimeUnit.SECONDS).statusCode());
            assertFalse(busy.isDone(), "the transcription did not wait for the chat backend");
            assertEquals(List.of("meanwhile.wav"), audio.finished());
            assertEquals(2, triage.triage().queues().size());
            chat.releaseHeld();
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());
        }
    }

    /** However the client sends it (with its length, chunked, or after a 100 Continue), the backend gets the upload as it was. */
    @Test
    void anUploadReachesTheBackendByteForByteHoweverItIsSent() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            byte[] form = new MultipartForm().field("model", "whisper-1").file("a.wav", SHORT).build();
            HttpRequest.Builder upload = HttpRequest.newBuilder(triage.uri("/v1/audio/transcriptions"))
                    .timeout(Duration.ofMinutes(1)).header("content-type", MultipartForm.CONTENT_TYPE);
            List<HttpRequest> ways = List.of(
                    upload.copy().POST(HttpRequest.BodyPublishers.ofByteArray(form)).build(),
                    upload.copy().POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(form))).build(),
                    upload.copy().expectContinue(true).POST(HttpRequest.BodyPublishers.ofByteArray(form)).build());
            for (HttpRequest way : ways) {
                HttpResponse<String> answer = triage.client().send(way, HttpResponse.BodyHandlers.ofString());
                assertEquals(200, answer.statusCode(), answer.body());
            }
            assertEquals(3, backend.uploads().size());
            for (int i = 0; i < ways.size(); i++) {
                assertArrayEquals(form, backend.uploads().get(i), "upload " + i);
                Map<String, String> headers = backend.requestHeaders().get(i);
                assertEquals(MultipartForm.CONTENT_TYPE, headers.get("content-type"), "the boundary as sent");
                assertEquals(String.valueOf(form.length), headers.get("content-length"));
                assertNull(headers.get("transfer-encoding"), "the body goes whole, with its length");
                assertNull(headers.get("expect"), "the client had its 100 Continue from Triage");
            }
        }
    }

    private static CompletableFuture<HttpResponse<String>> transcribe(RunningTriage triage, String fileName, byte[] audio,
            String language) {
        byte[] form = new MultipartForm().field("model", "whisper-1").field("language", language).file(fileName, audio).build();
        return triage.postAsync("/v1/audio/transcriptions", MultipartForm.CONTENT_TYPE, form);
    }

    private static String estimate(CompletableFuture<HttpResponse<String>> response) throws Exception {
        return estimate(response.get(30, TimeUnit.SECONDS));
    }

    private static String estimate(HttpResponse<String> response) {
        return response.headers().firstValue("x-triage-estimate-tokens").orElseThrow();
    }

    /** A 16-bit PCM WAV whose samples are {@code wav}'s, said {@code times} times over. */
    private static byte[] repeated(byte[] wav, int times) {
        int data = indexOf(wav, "data".getBytes(StandardCharsets.US_ASCII));
        int samples = ByteBuffer.wrap(wav, data + 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        ByteBuffer out = ByteBuffer.allocate(data + 8 + samples * times).order(ByteOrder.LITTLE_ENDIAN);
        out.put(wav, 0, data + 8).putInt(4, out.capacity() - 8).putInt(data + 4, samples * times);
        for (int i = 0; i < times; i++) {
            out.put(wav, data + 8, samples);
        }
        return out.array();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("no " + new String(needle, StandardCharsets.US_ASCII) + " chunk");
    }
}
