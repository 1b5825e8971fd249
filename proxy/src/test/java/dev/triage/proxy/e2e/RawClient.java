package dev.triage.proxy.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A client on a bare socket, for tests that must hang up at a chosen moment. */
final class RawClient implements AutoCloseable {

    private final Socket socket;
    private final BufferedReader in;

    RawClient(int port) throws IOException {
        this(port, 0);
    }

    /** @param receiveBuffer the socket's receive buffer in bytes, or 0 for the system's */
    RawClient(int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer); // before connecting, so that the window is small from the start
        }
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        socket.setSoTimeout(30_000);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
    }

    void post(String path, String json) throws IOException {
        send(request(path, json));
    }

    /** A POST of {@code json}, head and body, as one string of bytes (ISO-8859-1, as {@link #send} writes it). */
    static String request(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return "POST " + path + " HTTP/1.1\r\nhost: triage\r\ncontent-type: application/json\r\ncontent-length: " + body.length
                + "\r\n\r\n" + new String(body, StandardCharsets.ISO_8859_1);
    }

    /** Writes {@code raw} in one write. */
    void send(String raw) throws IOException {
        socket.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /** Reads lines until one starts with {@code prefix}; returns it. */
    String readLineStartingWith(String prefix) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IOException("connection closed before a line starting with " + prefix);
    }

    /** The rest of what is sent, up to the connection's end; fails with a timeout if it does not end. */
    String readRest() throws IOException {
        StringBuilder rest = new StringBuilder();
        char[] buffer = new char[8192];
        int read;
        while ((read = in.read(buffer)) != -1) {
            rest.append(buffer, 0, read);
        }
        return rest.toString();
    }

    /** Reads until the connection ends; fails with a timeout if it does not. */
    void readToEnd() throws IOException {
        char[] skipped = new char[8192];
        while (in.read(skipped) != -1) {
            // what was sent before the end
        }
    }

    String readLine() throws IOException {
        return in.readLine();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
