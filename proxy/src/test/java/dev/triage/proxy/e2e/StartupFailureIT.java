package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The packaged jar, run as its own process, on a listen address it cannot have: one line, exit 1. */
class StartupFailureIT {

    @Test
    void aListenPortInUseIsOneLineAndExitOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Process triage = start("--listen", "127.0.0.1:" + port, "--backend", "http://127.0.0.1:9");
            assertTrue(triage.waitFor(60, TimeUnit.SECONDS), "the process exits instead of hanging");
            List<String> output = new String(triage.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertEquals(1, triage.exitValue(), String.join("\n", output));
            assertTrue(output.contains("triage: listen 127.0.0.1:" + port + ": Address already in use"), String.join("\n", output));
            assertTrue(output.stream().noneMatch(line -> line.startsWith("\tat ") || line.contains("Exception")),
                    "no stack trace: " + String.join("\n", output));
            // The default estimator loads in the background once Triage serves: a process that exits while a
            // native library loads can crash on the way out instead of exiting 1.
            assertTrue(output.stream().noneMatch(line -> line.contains("in the background")),
                    "no model load started: " + String.join("\n", output));
        }
    }

    private static Process start(String... flags) throws IOException {
        Path jar = Path.of("target", "triage.jar");
        assertTrue(Files.isRegularFile(jar), "the packaged jar " + jar.toAbsolutePath());
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-jar", jar.toString()));
        command.addAll(List.of(flags));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
