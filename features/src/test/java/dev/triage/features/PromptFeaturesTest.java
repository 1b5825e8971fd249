package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PromptFeaturesTest {

    @Test
    void theFeaturesAreExtractedOnceAndKeptForEveryLaterReader() {
        Prompt prompt = new Prompt("Explain, step by step, how a hash map resizes.");
        PromptFeatures features = PromptFeatures.of(prompt);
        float[] first = features.get().orElseThrow();
        assertArrayEquals(RequestFeatures.of(prompt), first);
        assertSame(first, features.get().orElseThrow());
        assertSame(prompt, features.prompt().orElseThrow());
    }

    @Test
    void aRequestWithoutAPromptHasNoFeatures() {
        assertTrue(PromptFeatures.NONE.get().isEmpty());
        assertTrue(PromptFeatures.NONE.prompt().isEmpty());
    }
}
