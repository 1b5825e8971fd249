package dev.triage.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.testing.ContinuingBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The npm {@code openai} and {@code ollama} packages (the versions {@code src/test/node/package-lock.json}
 * pins, installed by {@code npm ci} during the build) against Triage: each {@code *.test.mjs} file there, one after another,
 * runs under Node's test runner against the same two stacks as {@link OpenAiJavaClientTest}, a roomy one
 * ({@code TRIAGE_URL}) and a tight one ({@code TRIAGE_TIGHT_URL}: one place in the queue, a 6 s wait), and
 * a third that pauses and resumes streams ({@code TRIAGE_PREEMPTIVE_URL}: {@code laps} with
 * {@code --preemption llama.cpp} in front of a backend that continues answers, 15 ms a token).
 */
class NodeClientsTest {

    private static final Path PROJECT = Path.of(System.getProperty("triage.node.project", "src/test/node"));

    @Test
    void npmSdksDriveTriage() throws Exception {
        List<String> files;
        try (Stream<Path> listing = Files.list(PROJECT)) {
            files = listing.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".test.mjs")).sorted().toList();
        }
        assertEquals(List.of("ollama.test.mjs", "openai.test.mjs", "preemption.test.mjs"), files);
        assertTrue(Files.isDirectory(PROJECT.resolve("node_modules/openai")), "npm ci has not run in " + PROJECT);
        try (ClientStack stack = ClientStack.start("--max-queue", "8");
                ClientStack tight = ClientStack.start("--max-queue", "1", "--max-queue-wait", "6s");
                ContinuingBackend continuing = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, Duration.ofMillis(15));
                RunningTriage preemptive = RunningTriage.start("--backend", continuing.url(), "--policy", "laps",
                        "--preemption", "llama.cpp", "--laps", "levels=2,first-level=300ms,window-tokens=2,preemptive-levels=2,max-preemptions=1",
                        "--starvation-timeout", "off")) {
            // One file at a time: the files share these stacks, and Node's runner runs files side by side
            // on machines with more than two cores (Debian 12's Node 18 has no --test-concurrency to stop it).
            for (String file : files) {
                ProcessBuilder node = new ProcessBuilder("node", "--test", "--test-reporter=spec", file).directory(PROJECT.toFile());
                node.environment().put("TRIAGE_URL", stack.url());
                node.environment().put("TRIAGE_TIGHT_URL", tight.url());
                node.environment().put("TRIAGE_PREEMPTIVE_URL", "http://127.0.0.1:" + preemptive.port());
                node.environment().put("TRIAGE_AUDIO_FIXTURE", System.getProperty("triage.audio.fixture"));
                node.environment().put("NO_COLOR", "1");
                runPassing(node, file);
            }
        } catch (IOException e) {
            throw new AssertionError("node could not be run (scripts/install-test-deps installs it)", e);
        }
    }

    /** Runs one test file under Node's runner and fails unless it ends, exits 0 and passed a test. */
    private static void runPassing(ProcessBuilder node, String file) throws IOException, InterruptedException {
        Path log = Files.createTempFile("node-clients", ".log");
        Process process = node.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(5, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Files.delete(log);
        System.out.println(output);
        assertTrue(ended, file + ": node's tests did not end in 5 minutes");
        assertEquals(0, process.exitValue(), file + ":\n" + output);
        Matcher passed = Pattern.compile("(?m)^\\S*\\s*pass (\\d+)$").matcher(output);
        assertTrue(passed.find() && Integer.parseInt(passed.group(1)) > 0, file + ": no test passed:\n" + output);
    }
}
