package dev.triage.model.ranker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The tokenizer and the encoder contact nothing over the network. Each case runs {@link OfflineProbe}
 * in a fresh JVM (DJL calls home at most once per JVM, and a socket factory can be set only once),
 * with DJL's switches removed from its environment, so that only the encoder's own code can switch
 * them on.
 */
class SentenceEncoderOfflineTest {

    @Test
    void theEncoderOpensNoConnection() throws Exception {
        List<String> output = probe("encoder");
        assertTrue(output.contains("encoded 2 texts of " + EncoderSpec.DEFAULT.dimensions()), String.join("\n", output));
        assertEquals("attempts: 0", output.get(output.size() - 1), String.join("\n", output));
    }

    /** Without this, a check that sees nothing would pass as well as one that finds nothing. */
    @Test
    void theCheckCatchesDjlsCallHome() throws Exception {
        List<String> output = probe("control");
        List<String> connects = output.stream().filter(line -> line.startsWith("connect ")).toList();
        // One from the control's own connection, then at least the token and metadata requests of DJL's call home.
        assertTrue(connects.size() >= 3, String.join("\n", output));
        assertTrue(connects.stream().allMatch(line -> line.contains("169.254.169.254")), String.join("\n", output));
    }

    private static List<String> probe(String mode) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), OfflineProbe.class.getName(), mode)
                .redirectErrorStream(true);
        builder.environment().remove(DjlOffline.OFFLINE_VARIABLE);
        builder.environment().remove(DjlOffline.OPT_OUT_TRACKING);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        assertEquals(0, process.exitValue(), output);
        return output.lines().toList();
    }
}
