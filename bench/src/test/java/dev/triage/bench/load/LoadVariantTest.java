package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LoadVariantTest {

    @Test
    void onlyALapsVariantPausesAndIsToldHowTheServerContinuesAStream() {
        LoadVariant laps = LoadVariant.parse("laps:ranker", Duration.ZERO);
        LoadVariant sjf = LoadVariant.parse("sjf", Duration.ZERO);
        assertTrue(laps.pauses());
        assertFalse(sjf.pauses());
        assertEquals(Optional.of("ranker"), laps.estimator());

        List<String> run = List.of("--estimator", "lexical");
        assertEquals(List.of("--estimator", "lexical", "--preemption", "llama.cpp"), laps.withPreemption(run, Optional.of("llama.cpp")));
        assertEquals(run, sjf.withPreemption(run, Optional.of("llama.cpp")), "Triage refuses --preemption but under laps");
        assertEquals(run, laps.withPreemption(run, Optional.empty()));
    }

    @Test
    void againstARealServerTheOnlyOracleIsOracleSjfSinceItsPriorityOutranksAnyPolicy() {
        List<LoadVariant> runnable = List.of("fcfs", "sjf:ranker", "laps", "oracle-sjf").stream()
                .map(name -> LoadVariant.parse(name, Duration.ZERO)).toList();
        assertEquals(runnable, LoadVariant.forRealServer(runnable));
        for (String oracle : List.of("oracle-laps", "oracle-hrrn", "oracle-fcfs")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> LoadVariant.forRealServer(List.of(LoadVariant.parse(oracle, Duration.ZERO))));
            assertTrue(e.getMessage().startsWith("variant: " + oracle + " (against a real server"), e.getMessage());
        }
    }

    @Test
    void aVariantMaySetItsOwnConcurrencyWhichWinsOverTheRunsAndTriageAccepts() {
        List<String> run = List.of("--max-concurrency", "8", "--estimator", "lexical");
        for (String slots : List.of("1", "32", "auto", "auto:2..64")) {
            LoadVariant variant = LoadVariant.parse("sjf@slots=" + slots, Duration.ZERO);
            assertEquals(Optional.of(slots), variant.maxConcurrency());
            List<String> flags = variant.triageFlags("http://127.0.0.1:9", run);
            assertEquals(slots, flags.get(flags.lastIndexOf("--max-concurrency") + 1), flags.toString());
            TriageConfig config = ConfigLoader.load(flags.toArray(String[]::new), Map.of());
            assertEquals(slots.startsWith("auto"), config.adaptiveConcurrency().isPresent(), slots);
        }
        LoadVariant plain = LoadVariant.parse("sjf", Duration.ZERO);
        List<String> flags = plain.triageFlags("http://127.0.0.1:9", run);
        assertEquals("8", flags.get(flags.lastIndexOf("--max-concurrency") + 1), "the run's, when the variant sets none");

        LoadVariant both = LoadVariant.parse("hrrn-tau:lexical@frozen@slots=auto", Duration.ofSeconds(5));
        assertEquals(Optional.of("auto"), both.maxConcurrency());
        assertFalse(both.learning());
        LoadVariant reordered = LoadVariant.parse("hrrn-tau:lexical@slots=auto@frozen", Duration.ofSeconds(5));
        assertEquals(Optional.of("auto"), reordered.maxConcurrency());
        assertFalse(reordered.learning());
        for (String bad : List.of("sjf@slots=0", "sjf@slots=", "sjf@slots=eight", "sjf@slots=auto:1", "sjf@slots=4@slots=8",
                "sjf@frozen@frozen", "sjf@", "sjf@fast")) {
            assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse(bad, Duration.ZERO), bad);
        }
    }
}
