package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class NeighbourMemoryTest {

    @Test
    void anEmptyMemoryKeepsTheCalibratedEstimate() {
        assertEquals(300, new NeighbourMemory().snapshot().tokens(new float[] {1, 2}, 300), 1e-9);
    }

    @Test
    void promptsLikeThoseAnsweredLongerAreEstimatedLonger() {
        // Two kinds of prompt the frozen estimator cannot tell apart (100 tokens each); this backend
        // answers the first kind with 40 tokens, the second with 1,000.
        NeighbourMemory memory = new NeighbourMemory();
        Random random = new Random(5);
        for (int i = 0; i < 400; i++) {
            boolean wordy = i % 2 == 0;
            memory.learn(kind(wordy, random), 100, wordy ? 1_000 : 40);
        }
        NeighbourMemory.Snapshot snapshot = memory.snapshot();
        double wordy = snapshot.tokens(kind(true, random), 100);
        double terse = snapshot.tokens(kind(false, random), 100);
        // Around the calibrated 100, by how far each kind's answers lie from the median of all (ln 2).
        assertTrue(wordy > 300 && terse < 40, wordy + " and " + terse);
    }

    @Test
    void theWindowIsBounded() {
        NeighbourMemory memory = new NeighbourMemory();
        for (int i = 0; i < 3 * NeighbourMemory.WINDOW; i++) {
            memory.learn(new float[] {i % 7, 1}, 100, 100);
        }
        assertEquals(NeighbourMemory.WINDOW, memory.snapshot().features().length);
    }

    /** Features of a prompt of either kind: the kind shows in one feature, among others that are noise. */
    private static float[] kind(boolean wordy, Random random) {
        return new float[] {(float) random.nextGaussian(), wordy ? 1 : 0, (float) random.nextGaussian(), 3};
    }
}
