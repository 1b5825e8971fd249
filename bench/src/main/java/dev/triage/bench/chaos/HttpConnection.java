package dev.triage.bench.chaos;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A client connection on a bare socket, for requests that no HTTP library would send, with answers
 * read exactly as they arrive: a response's framing (its length, its chunks, or the end of the
 * connection) is checked, not smoothed over, and a connection that ends or is reset is a result, not
 * an error.
 *
 * <pre>{@code
 * try (HttpConnection connection = HttpConnection.open(port, Duration.ofSeconds(30))) {
 *     connection.write("GET /healthz HTTP/1.1\r\nhost: triage\r\n\r\n");
 *     HttpConnection.Response response = connection.readResponse();
 * }
 * }</pre>
 */
final class HttpConnection implements AutoCloseable {

    private static final int MAX_LINE = 64 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Duration readTimeout;
    /** While a body is read slowly: the most one read takes, and what the reader does after each. */
    private int piece = Integer.MAX_VALUE;
    private Runnable afterRead = () -> { };

    private HttpConnection(Socket socket, Duration readTimeout) throws IOException {
        this.socket = socket;
        this.readTimeout = readTimeout;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
        this.in = new BufferedInputStream(socket.getInputStream(), 8 * 1024);
        this.out = socket.getOutputStream();
    }

    /** A connection to Triage on loopback; every read waits at most {@code readTimeout}. */
    static HttpConnection open(int port, Duration readTimeout) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        return new HttpConnection(socket, readTimeout);
    }

    /**
     * Like {@link #open(int, Duration)}, with a receive buffer this small (set before connecting, so the
     * kernel does not grow it): a client that stops reading then stops the sender soon.
     */
    static HttpConnection openWithSmallBuffer(int port, Duration readTimeout, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(receiveBuffer);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), Math.toIntExact(readTimeout.toMillis()));
        return new HttpConnection(socket, readTimeout);
    }

    /** How a response's body was delimited. */
    enum Framing { LENGTH, CHUNKED, CLOSE, NONE }

    /**
     * A response as it came.
     *
     * @param headers lower-cased names; repeated headers joined with {@code ", "}
     * @param complete whether the body ended as its framing says it should (a chunked body with its
     *     last chunk, a sized one with all its bytes), rather than with the connection
     */
    record Response(String version, int status, Map<String, String> headers, byte[] body, Framing framing, boolean complete) {

        String header(String name) {
            return headers.get(name);
        }

        boolean has(String name) {
            return headers.containsKey(name);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The connection ends after this response, as its version and {@code connection} header say. */
        boolean closes() {
            String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
            return framing == Framing.CLOSE || connection.contains("close")
                    || (version.equals("HTTP/1.0") && !connection.contains("keep-alive"));
        }
    }

    void write(String ascii) throws IOException {
        write(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Writes a request head, then its body, so that a body the server refuses early can still be followed. */
    void write(String head, byte[] body) throws IOException {
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    /**
     * The next response, head and body; null when the connection ended (or was reset) before a
     * status line. A body cut short by the connection's end is returned as far as it came, not
     * complete.
     *
     * @throws SocketTimeoutException when the server says nothing for the read timeout
     */
    Response readResponse() throws IOException {
        return readResponse(false);
    }

    /** Like {@link #readResponse()}, for the answer to a {@code HEAD} request, which has no body. */
    Response readResponse(boolean head) throws IOException {
        Response start = readHead();
        if (start == null) {
            return null;
        }
        if (head) {
            return start;
        }
        return readBody(start);
    }

    /** The next response's status line and headers, no body; null when the connection ended first. */
    Response readHead() throws IOException {
        while (true) {
            String statusLine = line();
            if (statusLine == null) {
                return null;
            }
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                throw new IOException("not a status line: " + abbreviate(statusLine));
            }
            int status = Integer.parseInt(parts[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            String header;
            while ((header = line()) != null && !header.isEmpty()) {
                int colon = header.indexOf(':');
                if (colon <= 0) {
                    throw new IOException("not a header: " + abbreviate(header));
                }
                headers.merge(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim(),
                        (a, b) -> a + ", " + b);
            }
            if (header == null) {
                return new Response(parts[0], status, headers, new byte[0], Framing.NONE, false);
            }
            if (status >= 100 && status < 200 && status != 101) {
                continue; // 100 Continue and kin: the answer follows
            }
            Framing framing = framing(status, headers);
            return new Response(parts[0], status, headers, new byte[0], framing, framing == Framing.NONE);
        }
    }

    /** The body of a response whose head {@link #readHead()} read. */
    Response readBody(Response head) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean complete = switch (head.framing()) {
            case NONE -> head.complete();
            case LENGTH -> copy(body, Long.parseLong(head.header("content-length").trim()));
            case CHUNKED -> chunks(body);
            case CLOSE -> {
                copyToEnd(body);
                yield true;
            }
        };
        return new Response(head.version(), head.status(), head.headers(), body.toByteArray(), head.framing(), complete);
    }

    /** Like {@link #readBody}, taking at most {@code piece} bytes at a time and running {@code afterRead} after each. */
    Response readBodySlowly(Response head, int piece, Runnable afterRead) throws IOException {
        this.piece = piece;
        this.afterRead = afterRead;
        try {
            return readBody(head);
        } finally {
            this.piece = Integer.MAX_VALUE;
            this.afterRead = () -> { };
        }
    }

    /** Reads up to {@code bytes} bytes of whatever comes; fewer when the connection ends. Returns how many. */
    int readSome(int bytes) throws IOException {
        int total = 0;
        byte[] buffer = new byte[Math.min(bytes, 8 * 1024)];
        while (total < bytes) {
            int n = read(buffer, 0, Math.min(buffer.length, bytes - total));
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /**
     * Reads and drops whatever comes until the connection ends; true when it ended within {@code within},
     * false when it was still open then.
     */
    boolean drainUntilClosed(Duration within) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        byte[] buffer = new byte[16 * 1024];
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
                try {
                    if (read(buffer, 0, buffer.length) < 0) {
                        return true;
                    }
                } catch (SocketTimeoutException e) {
                    return false;
                }
            }
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
            }
        }
    }

    /** Closes with a TCP reset instead of an orderly end, as a killed client's kernel would. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static Framing framing(int status, Map<String, String> headers) {
        if (status == 204 || status == 304) {
            return Framing.NONE;
        }
        String encoding = headers.get("transfer-encoding");
        if (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
            return Framing.CHUNKED;
        }
        return headers.containsKey("content-length") ? Framing.LENGTH : Framing.CLOSE;
    }

    private boolean copy(ByteArrayOutputStream body, long length) throws IOException {
        byte[] buffer = new byte[16 * 1024];
        long left = length;
        while (left > 0) {
            int n = read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                return false;
            }
            body.write(buffer, 0, n);
            left -= n;
        }
        return true;
    }

    private void copyToEnd(ByteArrayOutputStream body) throws IOException {
        byte[] buffer = new byte[16 * 1024];
        int n;
        while ((n = read(buffer, 0, buffer.length)) >= 0) {
            body.write(buffer, 0, n);
        }
    }

    /** A chunked body; false when the connection ended before the last chunk. */
    private boolean chunks(ByteArrayOutputStream body) throws IOException {
        while (true) {
            String sizeLine = line();
            if (sizeLine == null) {
                return false;
            }
            int extension = sizeLine.indexOf(';');
            long size;
            try {
                size = Long.parseLong((extension < 0 ? sizeLine : sizeLine.substring(0, extension)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("not a chunk size: " + abbreviate(sizeLine));
            }
            if (size == 0) {
                String trailer;
                while ((trailer = line()) != null && !trailer.isEmpty()) {
                    // trailers are not kept
                }
                return trailer != null;
            }
            if (!copy(body, size) || line() == null) {
                return false;
            }
        }
    }

    /** One line without its end; null when the connection ended before any byte of it. */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int b = readByte();
            if (b < 0) {
                return line.isEmpty() ? null : line.toString();
            }
            if (b == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            if (line.length() >= MAX_LINE) {
                throw new IOException("a line longer than " + MAX_LINE + " bytes");
            }
            line.append((char) b);
        }
    }

    /** A byte, or -1 when the connection ended or was reset. */
    private int readByte() throws IOException {
        try {
            return in.read();
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (SocketException | EOFException e) {
            return -1;
        }
    }

    private int read(byte[] buffer, int offset, int length) throws IOException {
        try {
            int n = in.read(buffer, offset, Math.min(length, piece));
            afterRead.run();
            return n;
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (SocketException | EOFException e) {
            return -1;
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "...";
    }
}
