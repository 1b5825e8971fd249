package dev.triage.bench.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BatchSlowdownTest {

    @Test
    void aStepGrowsSlowlyWhileMemoryBoundAndInProportionToTheBatchOnceComputeBound() {
        BatchSlowdown slowdown = new BatchSlowdown(0.05, 16);
        assertEquals(1, slowdown.factor(1), 1e-12);
        assertEquals(1.35, slowdown.factor(8), 1e-12);
        assertEquals(1.75, slowdown.factor(16), 1e-12);
        assertEquals(3.5, slowdown.factor(32), 1e-12);
        double atKnee = 16 / slowdown.factor(16);
        for (int batch = 17; batch <= 64; batch++) {
            assertEquals(atKnee, batch / slowdown.factor(batch), 1e-9, "throughput past the knee, batch " + batch);
        }
    }

    @Test
    void aLinearSlowdownKeepsPayingForALargerBatch() {
        BatchSlowdown linear = BatchSlowdown.linear(0.05);
        assertEquals(1 + 0.05 * 63, linear.factor(64), 1e-12);
        assertEquals(linear, BatchSlowdown.DEFAULT);
    }

    @Test
    void badSettingsAreRefusedByName() {
        assertEquals("batch-slowdown: -0.1 (expected: >= 0)",
                assertThrows(IllegalArgumentException.class, () -> new BatchSlowdown(-0.1, 0)).getMessage());
        assertEquals("compute-bound-batch: -1 (expected: >= 1, or 0 for never)",
                assertThrows(IllegalArgumentException.class, () -> new BatchSlowdown(0.05, -1)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> BatchSlowdown.linear(Double.NaN));
    }
}
