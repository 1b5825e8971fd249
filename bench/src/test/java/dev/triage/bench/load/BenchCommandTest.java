package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.cli.Flags;
import org.junit.jupiter.api.Test;

class BenchCommandTest {

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> BenchCommand.run(Flags.parse(args))).getMessage();
    }

    /** Options a command would read and then ignore are refused before anything starts, rather than silently dropped. */
    @Test
    void anOptionACommandWouldIgnoreIsRefused() {
        assertTrue(refusal("tenants", "--variants", "fcfs").startsWith("--variants: not with bench tenants"));
        assertTrue(refusal("tenants", "--api", "ollama").startsWith("--api: not with bench tenants"));
        assertTrue(refusal("poisson", "--backend", "http://127.0.0.1:9", "--backend-slots", "4")
                .startsWith("--backend-slots: not with --backend, a real server"));
        assertTrue(refusal("poisson", "--backend", "http://127.0.0.1:9", "--variants", "oracle-laps")
                .startsWith("variant: oracle-laps (against a real server"));
    }
}
