package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PassThroughTest {

    @Test
    void unscheduledPathsAreServedWhileTheOnlySlotIsBusy() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(5));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            CompletableFuture<HttpResponse<String>> busy =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 1, false));
            Await.until("busy runs", () -> backend.started().contains("busy [held]"));
            HttpResponse<String> models = triage.get("/v1/models");
            assertEquals(200, models.statusCode());
            assertTrue(models.body().contains("\"fake\""));
            assertNull(models.headers().firstValue("x-triage-policy").orElse(null), "pass-through is not scheduled");
            assertFalse(busy.isDone(), "the models list did not wait for the generation");
            assertEquals(1, triage.chatQueue().busySlots(), "and took no slot");
            backend.releaseHeld();
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());
        }
    }

    /** Generations on llama-server's own routes and OpenAI's Responses API hold a backend slot: they wait their turn. */
    @Test
    void llamaServersOwnRoutesAndTheResponsesApiAreScheduled() throws Exception {
        Map<String, String> bodies = Map.of(
                "/completion", "{\"prompt\":\"Once upon a time\",\"n_predict\":5}",
                "/completions", "{\"prompt\":\"Once upon a time\",\"max_tokens\":5}",
                "/chat/completions", ChatRequests.chat("hello", 5, false),
                "/v1/responses", "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hello\"}]}],"
                        + "\"max_output_tokens\":5}",
                "/responses", "{\"input\":\"hello\",\"max_output_tokens\":5}");
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ofMillis(1));
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            for (Map.Entry<String, String> route : bodies.entrySet()) {
                HttpResponse<String> answer = triage.post(route.getKey(), route.getValue());
                assertEquals(200, answer.statusCode(), route.getKey());
                assertEquals("5", answer.headers().firstValue("x-triage-estimate-tokens").orElse(null), route.getKey());
            }
        }
    }

    @Test
    void headersGoUpstreamUntouchedButForHopByHopOnesAndHost() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            try (RawClient raw = new RawClient(triage.port())) {
                String body = ChatRequests.chat("headers", 2, false);
                raw.send("POST /v1/chat/completions?trace=1 HTTP/1.1\r\nhost: triage.example\r\n"
                        + "authorization: Bearer sk-secret\r\nx-custom: kept\r\nconnection: keep-alive, x-hop\r\n"
                        + "x-hop: dropped\r\nkeep-alive: timeout=5\r\ncontent-type: application/json\r\n"
                        + "content-length: " + body.length() + "\r\n\r\n" + body);
                assertEquals("HTTP/1.1 200 X", raw.readLine());
            }
            Map<String, String> seen = backend.requestHeaders().get(0);
            assertEquals("Bearer sk-secret", seen.get("authorization"));
            assertEquals("kept", seen.get("x-custom"));
            assertEquals("127.0.0.1:" + backend.port(), seen.get("host"));
            assertNull(seen.get("x-hop"));
            assertNull(seen.get("keep-alive"));
            assertFalse(seen.getOrDefault("connection", "").contains("x-hop"));
        }
    }

    @Test
    void streamedRequestBodiesReachTheBackendWhole() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            // /v1/embeddings is not scheduled: its chunked body is streamed through as it comes.
            String json = ChatRequests.chat("embed " + "word ".repeat(20_000), 2, false);
            HttpRequest request = HttpRequest.newBuilder(triage.uri("/v1/embeddings"))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(json.getBytes())))
                    .build();
            HttpResponse<String> response = triage.client().send(request, HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertTrue(backend.started().get(0).startsWith("embed word word"));
            assertEquals(json.length() - ChatRequests.chat("", 2, false).length(), backend.started().get(0).length());
        }
    }

    @Test
    void manyRequestsReuseKeepAliveConnections() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            for (int i = 0; i < 50; i++) {
                assertEquals(200, triage.post("/v1/chat/completions", ChatRequests.chat("n" + i, 1, false)).statusCode());
                assertEquals(200, triage.get("/v1/models").statusCode());
            }
            assertEquals(50, backend.finished().size());
        }
    }

    @Test
    void aPassedThroughBodyWithBrokenChunkFramingIsNeverCompletedAtTheBackend() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url());
                RawClient client = new RawClient(triage.port())) {
            client.send("POST /v1/embeddings HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                    + "transfer-encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n{}\r\n0\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
            String answer = client.readRest();
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(answer.contains("connection: close"), answer);
            assertFalse(answer.contains("HTTP/1.1 200"), answer);
            assertTrue(backend.requestHeaders().isEmpty(), "the backend never got a whole request");
        }
    }

    /**
     * A backend that refuses an upload before reading it (an auth check in front of it, say): the client
     * gets the answer, the rest of its body is read and dropped, and its connection serves on.
     */
    @Test
    void anAnswerBeforeTheBodyIsThroughLeavesTheClientsConnectionServing() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread backend = new Thread(() -> answerBeforeReading(server), "early-answering-backend");
            backend.setDaemon(true);
            backend.start();
            try (RunningTriage triage = RunningTriage.start("--backend", "http://127.0.0.1:" + server.getLocalPort());
                    RawClient client = new RawClient(triage.port())) {
                int length = 4 * 1024 * 1024;
                client.send("POST /v1/embeddings HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: "
                        + length + "\r\n\r\n" + "x".repeat(1024));
                assertTrue(client.readLineStartingWith("HTTP/").startsWith("HTTP/1.1 401"));
                client.send("x".repeat(length - 1024) + "GET /healthz HTTP/1.1\r\nhost: t\r\n\r\n");
                assertTrue(client.readLineStartingWith("HTTP/").startsWith("HTTP/1.1 200"), "the next request on the connection");
            }
        }
    }

    /** Answers every GET 200, and every POST 401 as soon as its head is read, then drains what follows. */
    private static void answerBeforeReading(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread connection = new Thread(() -> {
                    try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                        while (true) {
                            String head = readHead(in);
                            if (head.isEmpty()) {
                                return;
                            }
                            boolean get = head.startsWith("GET");
                            // A line of its own: the client's reader finds the next status line at a line's start.
                            String body = (get ? "{\"object\":\"list\",\"data\":[]}" : "{\"error\":{\"message\":\"no key\"}}") + "\n";
                            out.write(("HTTP/1.1 " + (get ? "200 OK" : "401 Unauthorized") + "\r\ncontent-type: application/json\r\n"
                                    + "content-length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
                            out.flush();
                            if (!get) {
                                in.transferTo(OutputStream.nullOutputStream());
                                return;
                            }
                        }
                    } catch (IOException e) {
                        // the test is over
                    }
                });
                connection.setDaemon(true);
                connection.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** A request's head, up to its blank line; empty at the connection's end. */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while ((b = in.read()) != -1) {
            head.append((char) b);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                return head.toString();
            }
        }
        return "";
    }

    /** A pull answers once its download is done (Ollama's clients pull without streaming): no silence limit cuts it. */
    @Test
    void aModelPullMayStaySilentLongerThanTheUpstreamTimeout() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(2, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--upstream-timeout", "300ms")) {
            CompletableFuture<HttpResponse<String>> pull =
                    triage.postAsync("/api/pull", "{\"model\":\"m\",\"stream\":false,\"prompt\":\"pull [held]\"}");
            Await.until("the pull reaches the backend", () -> backend.started().contains("pull [held]"));
            // Two silent pass-throughs, one after the other, each cut at the limit: the pull has waited twice as long.
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> embed = triage.post("/api/embed", "{\"model\":\"m\",\"prompt\":\"embed [held]\"}");
                assertEquals(504, embed.statusCode(), "any other silent pass-through still times out");
            }
            assertFalse(pull.isDone());
            backend.releaseHeld();
            assertEquals(200, pull.get(30, TimeUnit.SECONDS).statusCode());
        }
    }
}
