package dev.triage.proxy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.features.ChatBody;
import dev.triage.proxy.api.OllamaApi;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An OpenAI-compatible backend for tests, on plain sockets so that it can misbehave on demand. It
 * runs {@code slots} generations at once (1 = a serial server like Ollama's default); further requests
 * wait their turn in arrival order. Each answer has {@code max_tokens} tokens (16 when unset),
 * produced at {@code perToken} each, streamed as SSE when the request asks for {@code stream}.
 *
 * <p>The prompt (the last user message) names the request in {@link #started()} and
 * {@link #finished()}, and can ask for trouble or time: a prompt containing {@code [held]} holds its
 * slot, saying nothing, until {@link #releaseHeld()} (so does an upload whose file name contains it);
 * {@code [stall]} is never answered,
 * {@code [die]} gets two SSE events and then a closed connection, {@code [fail]} two SSE events and
 * then an error event that ends the stream (as llama.cpp reports a failure once the status line went
 * out), {@code [hints]} a {@code 103 Early Hints} before its answer, {@code [http10]} an HTTP/1.0 answer
 * delimited by the connection's close, {@code [garbage]} gets bytes that
 * are not HTTP, {@code [hangup]} gets a closed connection without a word (as when a server closes an
 * idle connection just as a request reaches it), {@code [reject]} gets the backend's own 422 error, {@code [bulky]} streams tokens of
 * 16 KB each (a few hundred fill the sockets between a backend and a client that does not read). Audio transcriptions take time in
 * proportion to the upload's size. {@code GET /v1/models} is answered at once, without a slot (a 503
 * while {@link #healthy(boolean) unhealthy}); any other {@code GET}, 404.
 */
public final class FakeOpenAiBackend implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The body of the backend's own error for a prompt containing {@code [reject]}. */
    public static final String REJECTION = "{\"error\":{\"message\":\"rejected by the backend\",\"type\":\"backend\"}}";

    private final ServerSocket server;
    private final Semaphore slots;
    private final Duration perToken;
    private final ExecutorService connections = Executors.newCachedThreadPool(new DaemonThreadFactory("fake-backend"));
    /** The accept loop, which holds the listening socket open until its accept returns. */
    private Future<?> accepting;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Connections waiting for their next request. */
    private final Set<Socket> idle = ConcurrentHashMap.newKeySet();
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final List<String> finished = new CopyOnWriteArrayList<>();
    private final List<String> aborted = new CopyOnWriteArrayList<>();
    private final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
    private final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    private final List<byte[]> uploads = new CopyOnWriteArrayList<>();
    private final CountDownLatch held = new CountDownLatch(1);
    private volatile boolean closed;
    private volatile boolean healthy = true;

    private FakeOpenAiBackend(ServerSocket server, int slots, Duration perToken) {
        this.server = server;
        this.slots = new Semaphore(slots, true);
        this.perToken = perToken;
    }

    public static FakeOpenAiBackend start(int slots, Duration perToken) throws IOException {
        FakeOpenAiBackend backend = new FakeOpenAiBackend(new ServerSocket(0, 128, InetAddress.getLoopbackAddress()), slots, perToken);
        backend.accepting = backend.connections.submit(backend::accept);
        return backend;
    }

    public int port() {
        return server.getLocalPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** Prompts in the order their generation started. */
    public List<String> started() {
        return List.copyOf(started);
    }

    /** Prompts whose answer was written completely, in that order. */
    public List<String> finished() {
        return List.copyOf(finished);
    }

    /** Prompts whose client (the proxy) closed the connection before the answer was complete. */
    public List<String> aborted() {
        return List.copyOf(aborted);
    }

    /** The headers of every request but the models listing (names lower-cased), in arrival order. */
    public List<Map<String, String>> requestHeaders() {
        return List.copyOf(headers);
    }

    /** The JSON body of every generation request, in arrival order. */
    public List<JsonNode> requestBodies() {
        return List.copyOf(bodies);
    }

    /** The body of every audio request, as it arrived. */
    public List<byte[]> uploads() {
        return List.copyOf(uploads);
    }

    private void accept() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                open.add(socket);
                connections.execute(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (!closed) {
                idle.add(socket);
                Request request = Request.read(in);
                idle.remove(socket);
                if (request == null) {
                    return;
                }
                if (!handle(request, in, out)) {
                    return;
                }
            }
        } catch (IOException e) {
            // the proxy closed the connection
        } finally {
            idle.remove(socket);
            open.remove(socket);
        }
    }

    /**
     * Closes every connection that waits for its next request, as a server's keep-alive timeout does,
     * and returns the ports its clients had them on.
     */
    public List<Integer> closeIdleConnections() {
        List<Integer> ports = new ArrayList<>();
        for (Socket socket : List.copyOf(idle)) {
            ports.add(socket.getPort());
            try {
                socket.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ports;
    }

    /** Answers one request; false when the connection must close. */
    private boolean handle(Request request, InputStream in, OutputStream out) throws IOException {
        if (request.method.equals("GET") && request.path.startsWith("/v1/models")) {
            if (healthy) {
                writeJson(out, 200, "{\"object\":\"list\",\"data\":[{\"id\":\"fake\",\"object\":\"model\"}]}");
            } else {
                writeJson(out, 503, "{\"error\":{\"message\":\"loading model\"}}");
            }
            return true;
        }
        headers.add(request.headers);
        if (request.method.equals("GET")) {
            writeJson(out, 404, "{\"error\":{\"message\":\"no such path\"}}");
            return true;
        }
        if (request.path.startsWith("/v1/audio/")) {
            return transcribe(request, out);
        }
        JsonNode body;
        try {
            body = JSON.readTree(request.body);
        } catch (IOException e) {
            writeJson(out, 400, "{\"error\":{\"message\":\"bad json at the backend\"}}");
            return true;
        }
        bodies.add(body);
        String prompt = ChatBody.prompt(body).text();
        int tokens = ChatBody.maxOutputTokens(body, ChatBody.Api.of(request.path, OllamaApi.owns(request.path))).orElse(16);
        boolean stream = body.path("stream").asBoolean(false);
        slots.acquireUninterruptibly();
        try {
            begin(prompt);
            return generate(prompt, tokens, stream, in, out);
        } finally {
            slots.release();
        }
    }

    private boolean generate(String prompt, int tokens, boolean stream, InputStream in, OutputStream out)
            throws IOException {
        if (prompt.contains("[stall]")) {
            // Say nothing until the client gives up and closes the connection, as a hung server would.
            while (in.read() != -1) {
                // discard
            }
            aborted.add(prompt);
            return false;
        }
        if (prompt.contains("[reject]")) {
            answer(prompt, () -> writeJson(out, 422, REJECTION));
            return true;
        }
        if (prompt.contains("[hangup]")) {
            return false;
        }
        if (prompt.contains("[garbage]")) {
            out.write("THIS IS NOT HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        }
        try {
            if (stream) {
                out.write(("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
                        + "transfer-encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String padding = prompt.contains("[bulky]") ? "x".repeat(16 * 1024) : "";
                for (int i = 0; i < tokens; i++) {
                    pause();
                    writeChunk(out, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t" + i + padding + " \"}}]}\n\n");
                    if (prompt.contains("[die]") && i == 1) {
                        return false;
                    }
                    if (prompt.contains("[fail]") && i == 1) {
                        writeChunk(out, "data: {\"error\":{\"code\":500,\"message\":\"generation failed\",\"type\":\"server_error\"}}\n\n");
                        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        return true;
                    }
                }
                answer(prompt, () -> {
                    writeChunk(out, "data: [DONE]\n\n");
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                });
            } else {
                for (int i = 0; i < tokens; i++) {
                    pause();
                }
                ObjectNode answer = JSON.createObjectNode();
                answer.put("object", "chat.completion");
                answer.putArray("choices").addObject().putObject("message")
                        .put("role", "assistant").put("content", "t ".repeat(tokens).trim());
                answer.putObject("usage").put("completion_tokens", tokens);
                String json = JSON.writeValueAsString(answer);
                if (prompt.contains("[http10]")) {
                    answer(prompt, () -> {
                        out.write(("HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n" + json).getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    });
                    return false;
                }
                if (prompt.contains("[hints]")) {
                    out.write("HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                answer(prompt, () -> writeJson(out, 200, json));
            }
        } catch (IOException e) {
            aborted.add(prompt);
            throw e;
        }
        return true;
    }

    /** The last write of an answer. */
    private interface LastWrite {
        void write() throws IOException;
    }

    /**
     * Notes the answer as finished, then writes its last bytes: a client that has the whole answer
     * then always finds it noted. If that write fails, the note is taken back.
     */
    private void answer(String name, LastWrite lastWrite) throws IOException {
        finished.add(name);
        try {
            lastWrite.write();
        } catch (IOException e) {
            finished.remove(name);
            throw e;
        }
    }

    /**
     * A serial transcription: its time grows with the upload (for PCM audio, with its duration),
     * {@code perToken} per kilobyte; the answer names the file, so tests can tell which finished.
     */
    private boolean transcribe(Request request, OutputStream out) throws IOException {
        uploads.add(request.body);
        String form = new String(request.body, StandardCharsets.ISO_8859_1);
        int name = form.indexOf("filename=\"");
        String file = name < 0 ? "?" : form.substring(name + 10, form.indexOf('"', name + 10));
        slots.acquireUninterruptibly();
        try {
            begin(file);
            try {
                TimeUnit.NANOSECONDS.sleep(perToken.toNanos() * request.body.length / 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(file, () -> writeJson(out, 200, transcription(file)));
            return true;
        } finally {
            slots.release();
        }
    }

    /** Notes a request's work as started, holding its slot first while its name asks for it. */
    private void begin(String name) {
        started.add(name);
        if (name.contains("[held]")) {
            try {
                held.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // closing: answer at once
            }
        }
    }

    /** The body this backend answers a transcription of {@code fileName} with. */
    public static String transcription(String fileName) {
        return "{\"text\":\"transcript of " + fileName + "\"}";
    }

    private void pause() {
        try {
            TimeUnit.NANOSECONDS.sleep(perToken.toNanos()); // generation time of one token
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void writeChunk(OutputStream out, String data) throws IOException {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void writeJson(OutputStream out, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\ncontent-type: application/json\r\ncontent-length: " + bytes.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** Lets every {@code [held]} prompt, now and later, go on to its answer. */
    public void releaseHeld() {
        held.countDown();
    }

    /** Whether {@code GET /v1/models}, a readiness probe's question, is answered 200 or 503; chat requests are served either way. */
    public void healthy(boolean answers) {
        healthy = answers;
    }

    /**
     * Stops at once, as a server process that dies: once this returns, a connection is refused, and
     * every connection it had is closed, the idle ones before the one answering (so that a proxy that
     * sees the answer broken finds the others closed too, rather than lend one to the next request).
     */
    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        // Closing a socket that a thread is accepting on leaves it listening, and completing
        // connections, until that accept returns.
        try {
            accepting.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the accept loop did not stop", e);
        }
        closeIdleConnections();
        for (Socket socket : open) {
            socket.close();
        }
        connections.shutdownNow();
    }

    /** An HTTP/1.1 request read off a socket: Content-Length or chunked bodies. */
    private record Request(String method, String path, Map<String, String> headers, byte[] body) {

        static Request read(InputStream in) throws IOException {
            String requestLine = line(in);
            if (requestLine == null || requestLine.isEmpty()) {
                return null;
            }
            String[] parts = requestLine.split(" ");
            Map<String, String> headers = new LinkedHashMap<>();
            String header;
            while ((header = line(in)) != null && !header.isEmpty()) {
                int colon = header.indexOf(':');
                headers.merge(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim(),
                        (a, b) -> a + ", " + b);
            }
            byte[] body;
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                body = chunked(in);
            } else {
                body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
            }
            return new Request(parts[0], parts[1], headers, body);
        }

        private static byte[] chunked(InputStream in) throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
                if (size == 0) {
                    while (!line(in).isEmpty()) {
                        // trailers
                    }
                    return body.toByteArray();
                }
                body.write(in.readNBytes(size));
                line(in);
            }
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) != -1) {
                if (b == '\n') {
                    int end = line.length();
                    return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
                }
                line.append((char) b);
            }
            return line.length() == 0 ? null : line.toString();
        }
    }
}
