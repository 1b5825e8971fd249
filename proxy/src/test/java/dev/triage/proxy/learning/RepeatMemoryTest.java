package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RepeatMemoryTest {

    private static final double MODEL = 100;

    @Test
    void aPromptThatComesBackIsEstimatedFromItsOwnAnswers() {
        RepeatMemory memory = new RepeatMemory();
        Random random = new Random(1);
        long[] answers = new long[40];
        for (int p = 0; p < answers.length; p++) {
            answers[p] = Math.round(Math.exp(2 + 6 * random.nextDouble()));
        }
        for (int round = 0; round < 4; round++) {
            for (int p = 0; p < answers.length; p++) {
                memory.learn(p, MODEL, Math.round(answers[p] * Math.exp(0.1 * random.nextGaussian())));
            }
        }
        assertTrue(memory.serving(), "repeats answered alike beat a model that cannot tell them apart");
        assertTrue(memory.repeatLogError() < 0.5 * memory.modelLogError(), memory.repeatLogError() + " vs " + memory.modelLogError());
        for (int p = 0; p < answers.length; p++) {
            double expected = Math.exp((4 * Math.log(answers[p]) + Math.log(MODEL)) / 5);
            assertEquals(expected, memory.tokens(p, MODEL), 0.25 * expected, "prompt " + p + " answered " + answers[p]);
        }
        assertEquals(MODEL, memory.tokens(answers.length, MODEL), 1e-9, "a prompt never seen keeps the model's estimate");
    }

    @Test
    void repeatsThatAnswerDifferentlyEachTimeKeepTheModelsEstimates() {
        RepeatMemory memory = new RepeatMemory();
        Random random = new Random(2);
        for (int i = 0; i < 400; i++) {
            // One prompt ("continue") whose answers vary widely, which a model reading the conversation estimates well.
            long actual = Math.round(Math.exp(2 + 6 * random.nextDouble()));
            memory.learn(7, actual * Math.exp(0.2 * random.nextGaussian()), actual);
        }
        assertFalse(memory.serving());
        assertEquals(MODEL, memory.tokens(7, MODEL), 1e-9);
    }

    @Test
    void memoryIsBoundedAndKeepsWhatRecurs() {
        RepeatMemory memory = new RepeatMemory();
        Random random = new Random(3);
        long recurring = random.nextLong();
        for (int i = 0; i < 100_000; i++) {
            memory.learn(i % 4 == 0 ? recurring : random.nextLong(), MODEL, i % 4 == 0 ? 900 : 20);
        }
        assertEquals(RepeatMemory.CAPACITY, memory.size());
        assertTrue(memory.serving());
        assertEquals(Math.exp((8 * Math.log(900) + Math.log(MODEL)) / 9), memory.tokens(recurring, MODEL), 1e-6,
                "a prompt that keeps coming back is never pushed out by one-off prompts");
    }

    @Test
    void savedStateRestoresTheSameEstimates() {
        RepeatMemory memory = new RepeatMemory();
        for (int round = 0; round < 3; round++) {
            for (long p = 0; p < 50; p++) {
                memory.learn(p * 0x9E37_79B9_7F4A_7C15L, MODEL, 10 + 20 * p);
            }
        }
        RepeatMemory restored = new RepeatMemory();
        assertTrue(restored.restore(memory.state()));
        assertTrue(restored.serving());
        for (long p = 0; p < 50; p++) {
            long fingerprint = p * 0x9E37_79B9_7F4A_7C15L;
            assertEquals(memory.tokens(fingerprint, MODEL), restored.tokens(fingerprint, MODEL), 1e-12);
        }
        assertEquals(memory.size(), restored.size());
        assertTrue(Arrays.equals(memory.state(), restored.state()));
    }

    @Test
    void stateThatLearnCannotHaveWrittenIsRefusedAndChangesNothing() {
        RepeatMemory memory = new RepeatMemory();
        for (int round = 0; round < 3; round++) {
            memory.learn(5, MODEL, 700);
            memory.learn(6, MODEL, 30);
        }
        double[] good = memory.state();
        RepeatMemory target = new RepeatMemory();
        assertTrue(target.restore(good));
        double before = target.tokens(5, MODEL);
        // The shadow's flag, the count, then the first entry's halves, log tokens, answers and last learned.
        double[][] corruptions = {{2, 0.5}, {3, -1}, {3, 0.5}, {4, Double.NaN}, {5, 0x1_0000_0000L}, {6, -1}, {6, Double.NaN},
            {6, 15}, {7, 0}, {7, RepeatMemory.REMEMBERED + 1}, {8, 1e9}};
        for (double[] corruption : corruptions) {
            double[] broken = good.clone();
            broken[(int) corruption[0]] = corruption[1];
            assertFalse(target.restore(broken), "[" + (int) corruption[0] + "] = " + corruption[1]);
        }
        assertFalse(target.restore(Arrays.copyOf(good, good.length - 1)));
        assertEquals(before, target.tokens(5, MODEL), 1e-12);
    }
}
