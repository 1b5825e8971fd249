package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyVariantTest {

    @Test
    void namesCarryTheOracleAndTheTimeout() {
        Duration tau = Duration.ofSeconds(30);
        assertEquals(new PolicyVariant("fcfs", Policy.FCFS, Duration.ZERO, false), PolicyVariant.parse("fcfs", tau));
        assertEquals(new PolicyVariant("hrrn-tau", Policy.HRRN, tau, false), PolicyVariant.parse("hrrn-tau", tau));
        assertEquals(new PolicyVariant("oracle-sjf", Policy.SJF, Duration.ZERO, true), PolicyVariant.parse("oracle-sjf", tau));
        assertEquals(new PolicyVariant("oracle-sjf-tau", Policy.SJF, tau, true), PolicyVariant.parse("oracle-sjf-tau", tau));
    }

    @Test
    void unknownPoliciesAndAMissingTauAreRefused() {
        var unknown = assertThrows(IllegalArgumentException.class, () -> PolicyVariant.parse("lifo", Duration.ZERO));
        assertTrue(unknown.getMessage().contains("expected: [oracle-]fcfs|sjf|hrrn|laps|ewsjf|ewsjf-estimate[-tau] or oracle-srpt"),
                unknown.getMessage());
        var noTau = assertThrows(IllegalArgumentException.class, () -> PolicyVariant.parse("sjf-tau", Duration.ZERO));
        assertTrue(noTau.getMessage().contains("--tau"), noTau.getMessage());
    }
}
