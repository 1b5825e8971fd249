package dev.triage.model.ranker;

import ai.djl.util.Ec2Utils;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketImpl;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Run in a child JVM by {@link SentenceEncoderOfflineTest}: every {@link Socket} of this JVM refuses
 * to connect and records where it was going, and every proxy lookup is recorded, before any DJL
 * class loads. DJL's call home opens plain sockets with {@link Proxy#NO_PROXY} (no proxy selector
 * sees it), so refusing at the socket is what catches it. Prints one line per attempt, then
 * {@code attempts: N}.
 *
 * <ul>
 *   <li>{@code encoder}: loads the {@link SentenceEncoder} and encodes a batch, as serving does.</li>
 *   <li>{@code control}: opens a connection the way DJL's call home does, and then calls DJL's
 *       call home itself with its offline switches off: both must be caught, or the check sees
 *       nothing.</li>
 * </ul>
 */
public final class OfflineProbe {

    private static final List<String> ATTEMPTS = new CopyOnWriteArrayList<>();

    private OfflineProbe() {}

    public static void main(String[] args) throws Exception {
        Socket.setSocketImplFactory(RefusingSocket::new);
        ProxySelector.setDefault(new ProxySelector() {
            @Override
            public List<Proxy> select(URI uri) {
                ATTEMPTS.add("proxy lookup " + uri);
                return List.of(Proxy.NO_PROXY);
            }

            @Override
            public void connectFailed(URI uri, SocketAddress address, IOException e) {}
        });
        switch (args[0]) {
            case "encoder" -> {
                try (SentenceEncoder encoder = SentenceEncoder.open(EncoderSpec.DEFAULT, 64)) {
                    float[][] embeddings = encoder.embed(List.of("How long is a piece of string?", "Write an essay."));
                    System.out.println("encoded " + embeddings.length + " texts of " + embeddings[0].length);
                }
            }
            case "control" -> {
                HttpURLConnection connection = (HttpURLConnection) new URL("http://169.254.169.254/latest/api/token")
                        .openConnection(Proxy.NO_PROXY);
                connection.setConnectTimeout(1000);
                try {
                    connection.connect();
                } catch (IOException expected) {
                    // Refused by RefusingSocket, which recorded it.
                }
                System.setProperty(DjlOffline.OFFLINE_PROPERTY, "false");
                System.setProperty(DjlOffline.OPT_OUT_TRACKING, "false");
                Ec2Utils.callHome("probe");
            }
            default -> throw new IllegalArgumentException("mode: " + args[0]);
        }
        ATTEMPTS.forEach(System.out::println);
        System.out.println("attempts: " + ATTEMPTS.size());
    }

    /** A socket that connects nowhere: it records the destination and fails. */
    private static final class RefusingSocket extends SocketImpl {

        @Override
        protected void connect(String host, int port) throws IOException {
            refuse(host + ":" + port);
        }

        @Override
        protected void connect(InetAddress address, int port) throws IOException {
            refuse(address + ":" + port);
        }

        @Override
        protected void connect(SocketAddress address, int timeout) throws IOException {
            refuse(String.valueOf(address));
        }

        private static void refuse(String destination) throws IOException {
            ATTEMPTS.add("connect " + destination);
            throw new IOException("network access refused in this test: " + destination);
        }

        @Override
        protected void create(boolean stream) {}

        @Override
        protected void bind(InetAddress host, int port) throws IOException {
            throw new IOException("bind refused in this test");
        }

        @Override
        protected void listen(int backlog) throws IOException {
            throw new IOException("listen refused in this test");
        }

        @Override
        protected void accept(SocketImpl s) throws IOException {
            throw new IOException("accept refused in this test");
        }

        @Override
        protected InputStream getInputStream() throws IOException {
            throw new IOException("not connected");
        }

        @Override
        protected OutputStream getOutputStream() throws IOException {
            throw new IOException("not connected");
        }

        @Override
        protected int available() {
            return 0;
        }

        @Override
        protected void close() {}

        @Override
        protected void sendUrgentData(int data) throws IOException {
            throw new IOException("not connected");
        }

        @Override
        public void setOption(int optionId, Object value) {}

        @Override
        public Object getOption(int optionId) {
            return null;
        }
    }
}
