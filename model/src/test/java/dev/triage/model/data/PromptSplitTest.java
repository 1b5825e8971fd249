package dev.triage.model.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromptSplitTest {

    @Test
    void theSamePromptInAnyCaseOrSpacingLandsInTheSameSplit() {
        for (int i = 0; i < 200; i++) {
            String prompt = "Explain topic number " + i + " to me";
            PromptSplit split = PromptSplit.of(prompt);
            assertEquals(split, PromptSplit.of("  EXPLAIN topic\tnumber " + i + "\n to me "));
        }
    }

    @Test
    void proportionsAreSeventyTenTwenty() {
        Map<PromptSplit, Integer> counts = new EnumMap<>(PromptSplit.class);
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            counts.merge(PromptSplit.of("prompt " + i), 1, Integer::sum);
        }
        assertEquals(0.70, counts.get(PromptSplit.TRAIN) / (double) n, 0.02);
        assertEquals(0.10, counts.get(PromptSplit.VALIDATION) / (double) n, 0.02);
        assertEquals(0.20, counts.get(PromptSplit.TEST) / (double) n, 0.02);
    }

    @Test
    void theAssignmentIsStableAcrossRunsAndMachines() {
        // SHA-256 of the normalized text: these buckets must never change, or every evaluation would move.
        assertEquals(PromptSplit.bucket("what is the capital of france?"), PromptSplit.bucket("what is the capital of france?"));
        int bucket = PromptSplit.bucket("hello");
        // First 8 bytes of SHA-256("hello") = 2cf24dba5fb0a30e, unsigned mod 100.
        assertEquals(Long.remainderUnsigned(0x2cf24dba5fb0a30eL, 100), bucket);
        assertTrue(bucket >= 0 && bucket < 100);
    }
}
