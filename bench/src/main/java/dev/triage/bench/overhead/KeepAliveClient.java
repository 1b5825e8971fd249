package dev.triage.bench.overhead;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The thinnest HTTP/1.1 client there is: one keep-alive socket, one fixed request sent again and
 * again, each response read by its {@code Content-Length}. What it costs is the same whether it talks
 * to a backend directly or through Triage, so the difference between the two is what Triage adds.
 */
final class KeepAliveClient implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final byte[] request;

    KeepAliveClient(int port, byte[] request) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        this.request = request;
    }

    /** A {@code GET} of {@code path}. */
    static byte[] get(String path) {
        return ("GET " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** A {@code POST} of a JSON body to {@code path}. */
    static byte[] postJson(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json\r\n"
                + "content-type: application/json\r\ncontent-length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return request;
    }

    /** Sends the request and reads the whole response; returns nanoseconds taken. */
    long roundTrip() throws IOException {
        long start = System.nanoTime();
        out.write(request);
        out.flush();
        int length = -1;
        StringBuilder line = new StringBuilder();
        int status = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed mid-response");
            }
            if (b != '\n') {
                line.append((char) b);
                continue;
            }
            String header = line.toString().trim();
            line.setLength(0);
            if (status < 0) {
                status = Integer.parseInt(header.split(" ")[1]);
            } else if (header.isEmpty()) {
                break;
            } else if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(header.substring(15).trim());
            }
        }
        if (status != 200 || length < 0) {
            throw new IOException("expected a 200 with a Content-Length, got " + status);
        }
        in.readNBytes(length);
        return System.nanoTime() - start;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
