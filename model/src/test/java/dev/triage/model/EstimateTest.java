package dev.triage.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import org.junit.jupiter.api.Test;

class EstimateTest {

    @Test
    void lengthClassBoundsFollowClairvoyant() {
        assertEquals(LengthClass.SHORT, LengthClass.of(199.9));
        assertEquals(LengthClass.MEDIUM, LengthClass.of(200));
        assertEquals(LengthClass.MEDIUM, LengthClass.of(799));
        assertEquals(LengthClass.LONG, LengthClass.of(800));
    }

    @Test
    void capBoundsTheTokensAndRecomputesTheClass() {
        Estimate longOne = Estimate.ofTokens(1500);
        Estimate capped = longOne.cappedAt(100);
        assertEquals(100, capped.expectedTokens());
        assertEquals(LengthClass.SHORT, capped.lengthClass());
        assertSame(longOne, longOne.cappedAt(4000));
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> Estimate.ofTokens(-1));
        assertThrows(IllegalArgumentException.class, () -> Estimate.ofTokens(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Estimate.ofTokens(Double.POSITIVE_INFINITY));
    }

    @Test
    void baselineGrowsWithThePrompt() {
        BaselineEstimator baseline = new BaselineEstimator();
        double shortPrompt = baseline.estimate(new Prompt("Capital of France?")).expectedTokens();
        double longPrompt = baseline.estimate(new Prompt("Review this code: " + "x = x + 1;\n".repeat(200))).expectedTokens();
        assertTrue(longPrompt > shortPrompt, longPrompt + " > " + shortPrompt);
        assertTrue(Double.isNaN(baseline.estimate(new Prompt("")).longProbability()));
    }
}
