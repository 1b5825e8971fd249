package dev.triage.bench.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The relay between a real HTTP client and a fake server that generates exactly {@code max_tokens}. */
class AnswerLengthRelayTest {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private FakeOpenAiBackend server;
    private AnswerLengthRelay relay;

    @BeforeEach
    void start() throws Exception {
        server = FakeOpenAiBackend.start(1, Duration.ofMillis(10));
        relay = AnswerLengthRelay.start(URI.create(server.url()));
    }

    @AfterEach
    void stop() throws IOException {
        relay.close();
        server.close();
    }

    private static String chat(String prompt, String extra) {
        return "{\"model\":\"m\",\"stream\":true" + extra + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
    }

    private HttpResponse<String> post(String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(relay.url() + "/v1/chat/completions"))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long tokenEvents(String body) {
        return body.lines().filter(line -> line.startsWith("data: {")).count();
    }

    @Test
    void theHeaderSetsTheAnswersLengthWhateverTheBodyAsksForAndIsNotPassedOn() throws Exception {
        HttpResponse<String> response = post(chat("hello", ",\"max_tokens\":3,\"max_completion_tokens\":2"),
                Map.of(AnswerLengthRelay.ANSWER_TOKENS, "12", AnswerLengthRelay.REQUEST_ID, "r1"));
        assertEquals(200, response.statusCode());
        assertEquals(12, tokenEvents(response.body()), response.body());
        Map<String, String> seen = server.requestHeaders().get(0);
        assertFalse(seen.containsKey(AnswerLengthRelay.ANSWER_TOKENS), seen.toString());
        assertEquals("r1", seen.get(AnswerLengthRelay.REQUEST_ID));
        Await.until("the relay counted the 12 tokens of r1", () -> streamed("r1") == 12);
        // The same connection serves the next request; one without the header goes unchanged.
        HttpResponse<String> plain = post(chat("again", ",\"max_tokens\":4"), Map.of());
        assertEquals(4, tokenEvents(plain.body()), plain.body());
    }

    @Test
    void aRequestResumedUnderItsIdAsksOnlyForTheRest() throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), relay.port())) {
            socket.setSoTimeout(30_000);
            byte[] body = chat("paused", "").getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nhost: relay\r\ncontent-type: application/json\r\n"
                    + AnswerLengthRelay.ANSWER_TOKENS + ": 200\r\n" + AnswerLengthRelay.REQUEST_ID + ": r2\r\ncontent-length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            int events = 0;
            while (events < 5) {
                if (in.readLine().startsWith("data: {")) {
                    events++;
                }
            }
        }
        Await.until("the server saw the client leave", () -> server.aborted().contains("paused"));
        int first = streamed("r2");
        assertTrue(first >= 5 && first < 200, first + " tokens streamed before the client left");

        HttpResponse<String> resumed = post(chat("paused", ""),
                Map.of(AnswerLengthRelay.ANSWER_TOKENS, "200", AnswerLengthRelay.REQUEST_ID, "r2"));
        assertEquals(200 - first, tokenEvents(resumed.body()));
        Await.until("r2 has streamed all 200 tokens", () -> streamed("r2") == 200);
        HttpResponse<String> again = post(chat("paused", ""),
                Map.of(AnswerLengthRelay.ANSWER_TOKENS, "200", AnswerLengthRelay.REQUEST_ID, "r2"));
        // A stream paused after its last token but before its end is resumed: the server gives it one more.
        assertEquals(200, again.statusCode());
        assertEquals(1, tokenEvents(again.body()));
    }

    @Test
    void badRequestsAreAnswered400AndNeverReachTheServer() throws Exception {
        HttpResponse<String> notANumber = post(chat("x", ""), Map.of(AnswerLengthRelay.ANSWER_TOKENS, "many"));
        assertEquals(400, notANumber.statusCode());
        assertTrue(notANumber.body().contains("\"message\":\"" + AnswerLengthRelay.ANSWER_TOKENS + ": many (expected: an integer >= 1)\""),
                notANumber.body());
        assertEquals(400, post(chat("x", ""), Map.of(AnswerLengthRelay.ANSWER_TOKENS, "0")).statusCode());
        HttpResponse<String> notJson = post("[1, 2", Map.of(AnswerLengthRelay.ANSWER_TOKENS, "5"));
        assertEquals(400, notJson.statusCode());
        assertTrue(notJson.body().contains("body: not JSON"), notJson.body());
        assertEquals(400, post("[1, 2]", Map.of(AnswerLengthRelay.ANSWER_TOKENS, "5")).statusCode());
        assertTrue(server.requestHeaders().isEmpty(), server.requestHeaders().toString());
    }

    @Test
    void anUnreachableServerIsA502() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        try (AnswerLengthRelay nowhere = AnswerLengthRelay.start(URI.create("http://127.0.0.1:" + closedPort))) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(nowhere.url() + "/v1/chat/completions"))
                    .header(AnswerLengthRelay.ANSWER_TOKENS, "5").POST(HttpRequest.BodyPublishers.ofString(chat("x", ""))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(502, response.statusCode());
            assertTrue(response.body().contains("unreachable"), response.body());
        }
    }

    private int streamed(String requestId) {
        try {
            return relay.streamedTokens(requestId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
