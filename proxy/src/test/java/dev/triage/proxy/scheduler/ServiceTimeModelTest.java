package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ServiceTimeModelTest {

    @Test
    void aBackendConfiguredToTakeNoPrefillTakesNoneButIsNeverExpectedToCostNothing() {
        ServiceTimeModel instant = new ServiceTimeModel(0, 1e-9);

        assertEquals(0, instant.takenPrefillSeconds(500), "the replay backend times its first token by this");
        assertEquals(ServiceTimeModel.MIN_SECONDS, instant.prefillSeconds(500), "schedulers divide by this");
        assertEquals(ServiceTimeModel.MIN_SECONDS, instant.seconds(500, 8));
    }

    @Test
    void prefillGrowsWithThePromptFromTheBase() {
        ServiceTimeModel model = new ServiceTimeModel(0.05, 0.0002, 0.02);

        assertEquals(0.05 + 0.0002 * 1000, model.takenPrefillSeconds(1000), 1e-12);
        assertEquals(model.takenPrefillSeconds(1000), model.prefillSeconds(1000), 1e-12);
        assertEquals(0.05 + 0.0002 * 1000 + 0.02 * 10, model.seconds(1000, 10), 1e-12);
    }
}
