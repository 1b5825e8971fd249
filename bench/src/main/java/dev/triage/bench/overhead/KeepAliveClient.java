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
 * The thinnest HTTP/1.1 client there is: one keep-alive socket, a fixed {@code GET}, a response read
 * by its {@code Content-Length}. What it costs is the same whether it talks to a backend directly or
 * through Triage, so the difference between the two is what Triage adds.
 */
final class KeepAliveClient implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final byte[] request;

    KeepAliveClient(int port, String path) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        request = ("GET " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
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
