package dev.triage.bench.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Requests that break HTTP/1.1's rules: a {@code Content-Length} that lies, bad chunk framing,
 * headers trickled in byte by byte, request lines of other protocols and versions, oversized
 * bodies; and requests that keep them but are rarely sent: pipelined, or over HTTP/1.0. A request
 * Triage cannot read must be refused, never forwarded, and its connection closed rather than left
 * to hang.
 */
final class ProtocolFaults {

    private static final String HEALTHZ = "GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";

    private ProtocolFaults() {}

    /** Declares more body than it sends: Triage's body read timeout must end the wait. */
    static Verdict contentLengthTooLong(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, false, 5);
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        long start = System.nanoTime();
        try (HttpConnection connection = HttpConnection.open(op.target.port(), bound())) {
            connection.write(op.head("POST", request.route().path, "HTTP/1.1", mark, "content-type: application/json",
                    "content-length: " + (request.body().length + op.between(1, 100))), request.body());
            return refusedAndClosed(connection, start, "lying content-length (longer)");
        }
    }

    /**
     * Declares less body than it sends, with a request after it: the cut body is malformed (400),
     * and what is left of it, read as the next request line, must not hang the connection.
     */
    static Verdict contentLengthTooShort(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, false, 5);
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        op.target.ledger().forbid(op.mark(1));
        try (HttpConnection connection = HttpConnection.open(op.target.port(), bound())) {
            connection.write(op.head("POST", request.route().path, "HTTP/1.1", mark, "content-type: application/json",
                    "content-length: " + (request.body().length - op.between(1, 20))), request.body());
            connection.write(op.head("GET", "/healthz", "HTTP/1.1", op.mark(1)));
            HttpConnection.Response first = connection.readResponse();
            if (first == null || first.status() != 400) {
                return Verdict.not(first == null ? "closed without an answer" : "first answer " + BackendFaults.describe(first));
            }
            HttpConnection.Response second = first.closes() ? null : connection.readResponse();
            if (second != null && second.status() < 400) {
                return Verdict.not("400, then the rest of the body served as a request: " + second.status());
            }
            return Verdict.as("400, then " + (second == null ? "closed" : second.status()));
        } catch (SocketTimeoutException e) {
            return Verdict.not("400, then the connection hung");
        }
    }

    /** A chunked body with broken framing, and a request pipelined after it. */
    static Verdict badChunkFraming(Op op) throws IOException {
        String[][] framings = {
            {"zz\r\n{}\r\n0\r\n\r\n", "chunk size zz"},
            {"-1\r\n{}\r\n0\r\n\r\n", "negative chunk size"},
            {"5\r\n{\"a\":1}\r\n0\r\n\r\n", "chunk longer than its size"},
            {"fffffffffffffffffff\r\n{}\r\n0\r\n\r\n", "chunk size past 64 bits"},
            {"2\r\n{}0\r\n\r\n", "no CRLF after the chunk"},
        };
        String[] framing = op.pick(framings);
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        try (HttpConnection connection = HttpConnection.open(op.target.port(), bound())) {
            connection.write(op.head("POST", "/v1/chat/completions", "HTTP/1.1", mark, "content-type: application/json",
                    "transfer-encoding: chunked") + framing[0] + HEALTHZ);
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not(framing[1] + ": closed without an answer");
            }
            if (response.status() != 400 || !response.closes()) {
                return Verdict.not(framing[1] + ": " + BackendFaults.describe(response)
                        + (response.closes() ? "" : " without connection: close"));
            }
            return Verdict.of(connection.drainUntilClosed(ChaosSettings.SLACK), "400 with connection: close, closed");
        } catch (SocketTimeoutException e) {
            return Verdict.not(framing[1] + ": no answer, or the pipelined request after it hung");
        } catch (IOException e) {
            return Verdict.not(framing[1] + ": " + e.getMessage());
        }
    }

    /** Both a length and chunked framing: the request may be read as chunked, but the connection must close after it. */
    static Verdict lengthAndChunked(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, false, 5);
        String mark = op.mark(0);
        op.target.ledger().forbid(op.mark(1));
        byte[] chunked = request.chunked(op, mark, "content-length: " + request.body().length);
        op.target.ledger().expect(mark, request.body());
        try (HttpConnection connection = HttpConnection.open(op.target.port(), bound())) {
            connection.write(chunked);
            try {
                connection.write(op.head("GET", "/v1/models", "HTTP/1.1", op.mark(1)));
            } catch (IOException e) {
                // refused and closed before the request after it was written: the answer may still be there to read
            }
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not("closed without an answer");
            }
            boolean refused = response.status() == 400;
            if (!refused && !(response.status() == 200 && response.closes())) {
                return Verdict.not(BackendFaults.describe(response) + (response.closes() ? "" : " and kept the connection"));
            }
            return Verdict.of(connection.drainUntilClosed(ChaosSettings.SLACK), refused ? "400, closed" : "200 read as chunked, closed");
        } catch (SocketTimeoutException e) {
            return Verdict.not("hung");
        }
    }

    /** Headers sent a byte at a time, slower than any client should: the header timeout must end the wait. */
    static Verdict headersTrickledSlowly(Op op) throws IOException {
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        byte[] head = op.head("GET", "/v1/models", "HTTP/1.1", mark, "accept: application/json",
                "user-agent: a-very-slow-client/1.0").getBytes(StandardCharsets.US_ASCII);
        long start = System.nanoTime();
        try (HttpConnection connection = HttpConnection.open(op.target.port(), bound())) {
            for (byte b : head) {
                try {
                    connection.write(new byte[] {b});
                } catch (IOException e) {
                    return closedWithin(start, "closed while trickling");
                }
                if (connection.drainUntilClosed(Duration.ofMillis(op.between(100, 200)))) {
                    return closedWithin(start, "closed while trickling");
                }
                if (Duration.ofNanos(System.nanoTime() - start).compareTo(bound()) > 0) {
                    return Verdict.not("still open after " + bound().toSeconds() + " s of trickled headers");
                }
            }
            return Verdict.not("the whole trickled head was waited for");
        }
    }

    /** Headers sent in small pieces, but quickly: a slow network, not an attack, so it must be served. */
    static Verdict headersTrickledQuickly(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, false, op.between(1, 10));
        String mark = op.mark(0);
        op.target.ledger().expect(mark, request.body());
        byte[] head = request.head(op, mark).getBytes(StandardCharsets.US_ASCII);
        try (HttpConnection connection = op.connect()) {
            int at = 0;
            while (at < head.length) {
                int piece = Math.min(head.length - at, op.between(1, 16));
                connection.write(Arrays.copyOfRange(head, at, at + piece));
                at += piece;
                ClientFaults.pause(op.between(0, 2));
            }
            connection.write(request.body());
            return request.checkAnswer(connection.readResponse());
        }
    }

    /** Request lines of other protocols or versions, or none at all: refused, never forwarded, and closed. */
    static Verdict badRequestLine(Op op) throws IOException {
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        String markHeader = ForwardingLedger.MARK_HEADER + ": " + mark + "\r\n";
        String[][] lines = {
            {"PRI * HTTP/2.0\r\n" + markHeader + "\r\nSM\r\n\r\n", "HTTP/2 preface"},
            {"GET / HTTP/9.9\r\nhost: x\r\n" + markHeader + "\r\n", "HTTP/9.9"},
            {"GET /v1/models HTTP/2.0\r\nhost: x\r\n" + markHeader + "\r\n", "HTTP/2.0 in an HTTP/1 request line"},
            {"POST /v1/chat/completions HTTP/3.0\r\nhost: x\r\ncontent-length: 2\r\n" + markHeader + "\r\n{}", "HTTP/3.0"},
            {"GET /v1/models\r\nhost: x\r\n" + markHeader + "\r\n", "no version (HTTP/0.9)"},
            {"G(T /v1/models HTTP/1.1\r\nhost: x\r\n" + markHeader + "\r\n", "a method that is not a token"},
            {"GET /v1/models HTTP/1.1\r\nhost : x\r\n" + markHeader + "\r\n", "white space before a header's colon"},
            {"GET /v1/" + "m".repeat(10_000) + " HTTP/1.1\r\nhost: x\r\n" + markHeader + "\r\n", "a 10 KB request line"},
            {"GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: " + "b".repeat(40_000) + "\r\n" + markHeader + "\r\n", "40 KB of headers"},
            {"\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u00fc\u0003\u0003" + markHeader + "\r\n\r\n", "a TLS handshake"},
        };
        String[] line = op.pick(lines);
        try (HttpConnection connection = HttpConnection.open(op.target.port(), bound())) {
            try {
                connection.write(line[0]);
            } catch (IOException e) {
                return Verdict.as(line[1] + ": closed");
            }
            HttpConnection.Response response = connection.readResponse();
            if (response != null && response.status() < 400) {
                return Verdict.not(line[1] + ": answered " + response.status());
            }
            boolean closed = response == null || connection.drainUntilClosed(ChaosSettings.SLACK);
            String seen = response == null ? "closed" : response.status() + ", closed";
            return Verdict.of(closed, closed ? line[1] + ": " + seen : line[1] + ": " + response.status() + ", left open");
        } catch (SocketTimeoutException e) {
            return Verdict.not(line[1] + ": no answer and not closed");
        } catch (IOException e) {
            return Verdict.not(line[1] + ": " + e.getMessage());
        }
    }

    /** A body past {@code --max-body}, sized or chunked: 413, never forwarded. */
    static Verdict oversizedBody(Op op) throws IOException {
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        byte[] body = new byte[ChaosSettings.MAX_BODY_BYTES + op.between(1, 200_000)];
        Arrays.fill(body, (byte) ' ');
        body[0] = '{';
        body[body.length - 1] = '}';
        boolean chunked = op.chance(0.3);
        try (HttpConnection connection = op.connect()) {
            String framing = chunked ? "transfer-encoding: chunked" : "content-length: " + body.length;
            try {
                connection.write(op.head("POST", "/v1/chat/completions", "HTTP/1.1", mark, "content-type: application/json", framing),
                        chunked ? chunk(body) : body);
            } catch (IOException e) {
                // refused before the whole body was sent: the answer may still be there to read
            }
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not("closed without an answer");
            }
            return Verdict.of(response.status() == 413, BackendFaults.describe(response) + (chunked ? " (chunked)" : ""));
        }
    }

    /** Several requests written at once: the answers come in order, each whole. */
    static Verdict pipelined(Op op) throws IOException {
        int count = op.between(2, 4);
        List<ChatRequest> chats = new ArrayList<>();
        StringBuilder kinds = new StringBuilder();
        try (HttpConnection connection = op.connect()) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < count; i++) {
                String mark = op.mark(i);
                int kind = op.random.nextInt(3);
                if (kind == 0) {
                    ChatRequest chat = ChatRequest.random(op, op.chance(0.5), op.between(1, 20));
                    op.target.ledger().expect(mark, chat.body());
                    all.writeBytes(chat.head(op, mark).getBytes(StandardCharsets.ISO_8859_1));
                    all.writeBytes(chat.body());
                    chats.add(chat);
                } else {
                    String path = kind == 1 ? "/healthz" : "/v1/models";
                    if (kind == 2) {
                        op.target.ledger().expect(mark, new byte[0]);
                    }
                    all.writeBytes(op.head("GET", path, "HTTP/1.1", mark).getBytes(StandardCharsets.ISO_8859_1));
                    chats.add(null);
                }
                kinds.append(kind == 0 ? 'c' : kind == 1 ? 'h' : 'm');
            }
            connection.write(all.toByteArray());
            for (int i = 0; i < count; i++) {
                HttpConnection.Response response = connection.readResponse();
                ChatRequest chat = chats.get(i);
                Verdict verdict = chat != null ? chat.checkAnswer(response)
                        : response == null || response.status() != 200 || !response.complete()
                                ? Verdict.not("answer " + (i + 1) + ": " + (response == null ? "none" : BackendFaults.describe(response)))
                                : Verdict.as("200");
                if (!verdict.expected()) {
                    return Verdict.not(count + " pipelined (" + kinds + "), answer " + (i + 1) + ": " + verdict.seen());
                }
            }
        }
        return Verdict.as(count + " pipelined, answered in order");
    }

    /** An HTTP/1.0 client: never a chunked answer, the body whole, and the connection closed unless kept alive. */
    static Verdict http10(Op op) throws IOException {
        boolean keepAlive = op.chance(0.3);
        String mark = op.mark(0);
        int kind = op.random.nextInt(4);
        String connectionHeader = keepAlive ? "connection: keep-alive" : "user-agent: http10-client";
        ChatRequest chat = kind < 2 ? ChatRequest.random(op, kind == 1, op.between(1, 20)) : null;
        try (HttpConnection connection = op.connect()) {
            if (chat != null) {
                op.target.ledger().expect(mark, chat.body());
                connection.write(chat.headIn(op, "HTTP/1.0", mark, connectionHeader), chat.body());
            } else {
                if (kind == 2) {
                    op.target.ledger().expect(mark, new byte[0]);
                }
                connection.write(op.head("GET", kind == 2 ? "/v1/models" : "/healthz", "HTTP/1.0", mark, connectionHeader));
            }
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not("HTTP/1.0: closed without an answer");
            }
            String what = "HTTP/1.0 " + (chat == null ? "GET" : chat.stream() ? "stream" : "chat") + ": ";
            if (response.framing() == HttpConnection.Framing.CHUNKED) {
                return Verdict.not(what + "a chunked answer");
            }
            if (response.status() != 200 || !response.complete() || (chat != null && !chat.wellEnded(response.text()))) {
                return Verdict.not(what + BackendFaults.describe(response));
            }
            boolean closes = response.closes();
            if (!keepAlive && !closes) {
                return Verdict.not(what + "the connection kept open for a client that did not ask");
            }
            if (closes && !connection.drainUntilClosed(ChaosSettings.SLACK)) {
                return Verdict.not(what + "the connection left open after a close-delimited answer");
            }
            return Verdict.as("HTTP/1.0: " + response.version() + " " + response.framing().name().toLowerCase(Locale.ROOT)
                    + "-framed, " + (closes ? "closed" : "kept alive"));
        }
    }

    /** The connection must end with a refusal (or without a word) within the bound, whatever the request was. */
    private static Verdict refusedAndClosed(HttpConnection connection, long start, String what) throws IOException {
        try {
            HttpConnection.Response response = connection.readResponse();
            if (response != null && (response.status() < 400 || response.status() >= 500)) {
                return Verdict.not(what + ": " + BackendFaults.describe(response));
            }
            if (response != null && !connection.drainUntilClosed(ChaosSettings.SLACK)) {
                return Verdict.not(what + ": " + response.status() + ", left open");
            }
            return closedWithin(start, response == null ? "closed" : response.status() + ", closed");
        } catch (SocketTimeoutException e) {
            return Verdict.not(what + ": waited on for " + bound().toSeconds() + " s");
        }
    }

    private static Verdict closedWithin(long start, String seen) {
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        if (took.compareTo(bound()) > 0) {
            return Verdict.not(seen + " only after " + took.toMillis() + " ms");
        }
        return Verdict.as(seen);
    }

    /** How long Triage may take to give up on a client that is too slow: its read timeout, and then some. */
    static Duration bound() {
        return ChaosSettings.CLIENT_READ_TIMEOUT.plus(ChaosSettings.SLACK);
    }

    private static byte[] chunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 64);
        for (int at = 0; at < body.length; at += 8192) {
            int size = Math.min(8192, body.length - at);
            out.writeBytes((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, size);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }
}
