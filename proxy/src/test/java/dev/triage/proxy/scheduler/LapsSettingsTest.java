package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LapsSettingsTest {

    @Test
    void thresholdsGrowGeometricallyAndTheLastLevelHasNoBound() {
        LapsSettings laps = new LapsSettings(4, 3, 2, 16, 0, 0.2, 2, 1);
        // S_1 = 2, S_2 = 6, S_3 = 18.
        assertEquals(1, laps.levelOf(0));
        assertEquals(1, laps.levelOf(1.99));
        assertEquals(2, laps.levelOf(2));
        assertEquals(2, laps.levelOf(5.99));
        assertEquals(3, laps.levelOf(6));
        assertEquals(4, laps.levelOf(18));
        assertEquals(4, laps.levelOf(1e9));
    }

    @Test
    void settingsRefuseWhatCannotWork() {
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(0, 2, 1, 16, 0, 0.2, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 1, 1, 16, 0, 0.2, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 2, 0, 16, 0, 0.2, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 2, 1, 0, 0, 0.2, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 2, 1, 16, -1, 0.2, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 2, 1, 16, 0, -0.1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 2, 1, 16, 0, 0.2, 4, 1));
        assertThrows(IllegalArgumentException.class, () -> new LapsSettings(3, 2, 1, 16, 0, 0.2, 1, -1));
    }

    @Test
    void pairsChangeOnlyWhatTheyName() {
        LapsSettings base = new LapsSettings(4, 4, 2, 16, 0, 0.2, 2, 2);
        assertEquals(base, base.with(""));
        assertEquals(new LapsSettings(6, 4, 0.5, 16, 3, 0.2, 2, 5), base.with("levels=6, first-level=500ms,stable-windows=3,max-preemptions=5"));
        assertEquals(new LapsSettings(4, 2.5, 1.5, 8, 0, 0.1, 4, 2),
                base.with("growth=2.5,first-level=1.5s,window-tokens=8,rate-tolerance=0.1,preemptive-levels=4"));
    }

    @Test
    void fewerLevelsLowerThePreemptiveLevelsUnlessTheyAreGiven() {
        LapsSettings base = new LapsSettings(4, 4, 2, 16, 0, 0.2, 3, 2);
        assertEquals(1, base.with("levels=1").preemptiveLevels());
        assertThrows(IllegalArgumentException.class, () -> base.with("levels=2,preemptive-levels=3"));
    }

    @Test
    void aDescriptionReadsBackToTheSameSettings() {
        LapsSettings settings = new LapsSettings(5, 2.5, 0.25, 8, 2, 0.15, 3, 4);
        assertEquals(settings, LapsSettings.DEFAULTS.with(settings.describe()));
        assertEquals(LapsSettings.DEFAULTS, new LapsSettings(1, 2, 1, 1, 0, 0, 0, 0).with(LapsSettings.DEFAULTS.describe()));
    }

    @Test
    void badPairsAreNamed() {
        var unknown = assertThrows(IllegalArgumentException.class, () -> LapsSettings.DEFAULTS.with("depth=3"));
        assertTrue(unknown.getMessage().startsWith("depth=3 (expected: levels, growth"), unknown.getMessage());
        var notANumber = assertThrows(IllegalArgumentException.class, () -> LapsSettings.DEFAULTS.with("levels=many"));
        assertEquals("levels=many (expected: a number)", notANumber.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LapsSettings.DEFAULTS.with("growth=1"));
    }
}
