package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
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

        BurstBenchmark.ServerSettings settings = new BurstBenchmark.ServerSettings(List.of(), List.of(laps, sjf), 1,
                URI.create("http://127.0.0.1:9"), List.of("--estimator", "lexical"), Optional.of("llama.cpp"));
        assertEquals(List.of("--estimator", "lexical", "--preemption", "llama.cpp"), settings.triageFlags(laps));
        assertEquals(List.of("--estimator", "lexical"), settings.triageFlags(sjf), "Triage refuses --preemption but under laps");
    }
}
