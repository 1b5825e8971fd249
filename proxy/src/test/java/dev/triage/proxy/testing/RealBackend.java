package dev.triage.proxy.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real {@code llama-server} or {@code whisper-server} from the Debian chroot that
 * {@code ../shared/backends/setup.sh} builds (at {@code $TRIAGE_BACKENDS}, default
 * {@code /tmp/triage-backends}). Tests that use one are skipped, saying why, where it is not
 * installed or this user cannot {@code chroot}.
 */
public final class RealBackend implements AutoCloseable {

    private final Process process;
    private final int port;
    private final File log;

    private RealBackend(Process process, int port, File log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The chroot holding the servers; skips the calling test when they are not there. */
    public static Path installed(String server) {
        Path root = Path.of(System.getenv().getOrDefault("TRIAGE_BACKENDS", "/tmp/triage-backends"));
        assumeTrue(Files.isExecutable(root.resolve("usr/bin/" + server)),
                server + " is not installed under " + root + "; run ../shared/backends/setup.sh (as root) to get it");
        assumeTrue("root".equals(System.getProperty("user.name")), "starting " + server + " needs chroot, so root");
        return root;
    }

    /** Starts {@code server} with {@code args} (a {@code --port} is added) and waits until {@code readyPath} answers 200. */
    public static RealBackend start(String server, String readyPath, String... args) throws Exception {
        Path root = installed(server);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of("chroot", root.toString(), server, "--host", "127.0.0.1",
                "--port", Integer.toString(port)));
        command.addAll(List.of(args));
        File log = File.createTempFile(server, ".log");
        log.deleteOnExit();
        // chroot execs the server, so this process is the server itself.
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
        RealBackend backend = new RealBackend(process, port, log);
        HttpClient client = HttpClient.newHttpClient();
        try {
            Await.until(server + " answers " + readyPath, Duration.ofSeconds(120), () -> {
                if (!process.isAlive()) {
                    throw new AssertionError(server + " exited: " + backend.log());
                }
                try {
                    return client.send(HttpRequest.newBuilder(URI.create(backend.url() + readyPath)).GET().build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (IOException | InterruptedException e) {
                    return false;
                }
            });
        } catch (AssertionError e) {
            backend.close();
            throw e;
        }
        return backend;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    private String log() {
        try {
            return Files.readString(log.toPath());
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
