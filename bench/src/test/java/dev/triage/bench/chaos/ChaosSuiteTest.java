package dev.triage.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A few thousand mixed faults against Triage as a process of its own, on real sockets, with paranoid
 * leak detection: every operation must see Triage behave, and every invariant must hold at the end.
 * {@code scripts/chaos} runs the full mix, as long as asked.
 */
class ChaosSuiteTest {

    /**
     * The replay backend closes a connection idle this long, as uvicorn (under vLLM) and llama-server do:
     * Triage must close its idle ones first, since a request sent as the backend closes is lost.
     */
    private static final Duration BACKEND_KEEP_ALIVE = Duration.ofSeconds(5);

    private static final Path AUDIO = Path.of("..", "features", "src", "test", "resources", "audio");

    @TempDir
    Path dir;

    @Test
    void aMixOfFaultsLeavesTriageServingAndAsItFoundIt() throws Exception {
        ChaosSettings settings = new ChaosSettings(2_000, 4, 16, 12, EnumSet.allOf(FaultKind.class), Duration.ofSeconds(5),
                BACKEND_KEEP_ALIVE, Duration.ofSeconds(30), AUDIO, dir, List.of());

        ChaosReport report = ChaosRun.run(settings, () -> { });

        assertEquals(List.of(), report.broken(), report::markdown);
        assertEquals(0, report.unexpected(), report::markdown);
        assertEquals(2_000, report.ops());
        assertTrue(report.forwarding().checked() > 1_000, report::markdown);
        assertTrue(report.backendFaults() > 100, report::markdown);
    }

    /**
     * The same mix where Triage pauses streams after 20 ms of service and resumes them as
     * continuations: a client that leaves while its stream is paused, a backend that fails during a
     * resume, a resume that meets a stale pooled connection, all on the way. Every resume must be the
     * continuation of its request, never a copy of it.
     */
    @Test
    void pausingAndResumingStreamsUnderFaultsLeavesNothingBehind() throws Exception {
        ChaosSettings settings = new ChaosSettings(600, 1, 16, 13, EnumSet.allOf(FaultKind.class), Duration.ofSeconds(5),
                BACKEND_KEEP_ALIVE, Duration.ofSeconds(30), AUDIO, dir,
                List.of("--policy", "laps", "--preemption", "llama.cpp", "--laps", "first-level=20ms,max-preemptions=3"));

        ChaosReport report = ChaosRun.run(settings, () -> { });

        assertEquals(List.of(), report.broken(), report::markdown);
        assertEquals(0, report.unexpected(), report::markdown);
        assertTrue(report.forwarding().resumed() >= 5, report::markdown);
    }
}
