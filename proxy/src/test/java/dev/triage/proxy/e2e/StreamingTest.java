package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class StreamingTest {

    @Test
    void sseEventsReachTheClientAsTheBackendEmitsThemUnchanged() throws Exception {
        int tokens = 40;
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(25));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<InputStream> response = triage.client().send(
                    triage.postRequest("/v1/chat/completions", ChatRequests.chat("stream me", tokens, true)),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            assertEquals("text/event-stream", response.headers().firstValue("content-type").orElseThrow());
            assertEquals("40", response.headers().firstValue("x-triage-estimate-tokens").orElseThrow());
            assertEquals("sjf", response.headers().firstValue("x-triage-policy").orElseThrow());
            assertTrue(response.headers().firstValue("x-triage-queue-ms").isPresent());

            StringBuilder received = new StringBuilder();
            long firstEventNanos = 0;
            long lastEventNanos = 0;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("data:")) {
                        lastEventNanos = System.nanoTime();
                        firstEventNanos = firstEventNanos == 0 ? lastEventNanos : firstEventNanos;
                    }
                    received.append(line).append('\n');
                }
            }

            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < tokens; i++) {
                expected.append("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t").append(i).append(" \"}}]}\n\n");
            }
            expected.append("data: [DONE]\n\n");
            assertEquals(expected.toString(), received.toString());
            // The backend writes the 40 tokens over a second (25 ms apart): relayed as they come, they reach the
            // client spread over about as long, however late the first; held back, they would come at once.
            long spreadMillis = (lastEventNanos - firstEventNanos) / 1_000_000;
            assertTrue(spreadMillis >= 500, "the events came within " + spreadMillis + " ms of each other");
        }
    }

    @Test
    void nonStreamingAnswersPassThroughWhole() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(1));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.chat("whole", 3, false));
            assertEquals(200, response.statusCode());
            assertEquals("{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"t t t\"}}],"
                    + "\"usage\":{\"completion_tokens\":3}}", response.body());
        }
    }

    @Test
    void anHttp10ClientGetsTheStreamInHttp10DelimitedByTheClose() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                RunningTriage triage = RunningTriage.start("--backend", backend.url());
                RawClient client = new RawClient(triage.port())) {
            String body = ChatRequests.chat("old client", 5, true);
            client.send("POST /v1/chat/completions HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: "
                    + body.length() + "\r\n\r\n" + body);
            String answer = client.readRest();
            assertTrue(answer.startsWith("HTTP/1.0 200"), answer);
            String head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase(Locale.ROOT);
            assertFalse(head.contains("transfer-encoding"), head);
            assertFalse(head.contains("content-length"), head);
            String events = answer.substring(answer.indexOf("\r\n\r\n") + 4);
            assertTrue(events.startsWith("data: {"), "the events themselves, with no chunk sizes: " + events);
            assertTrue(events.endsWith("data: [DONE]\n\n"), events);
        }
    }
}
