package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import org.junit.jupiter.api.Test;

class PromptFingerprintTest {

    @Test
    void spacingCaseAndNumbersDoNotMakeANewPrompt() {
        long fingerprint = PromptFingerprint.of(new Prompt("Summarise ticket 4711 for the on-call engineer.")).getAsLong();
        assertEquals(fingerprint, PromptFingerprint.of(new Prompt("  summarise ticket 98\n for the ON-CALL engineer. ")).getAsLong());
    }

    @Test
    void otherWordsOrAnotherTurnMakeAnotherPrompt() {
        long fingerprint = PromptFingerprint.of(new Prompt("Summarise ticket 4711.")).getAsLong();
        assertNotEquals(fingerprint, PromptFingerprint.of(new Prompt("Summarise ticket 4711 in detail.")).getAsLong());
        assertNotEquals(fingerprint, PromptFingerprint.of(new Prompt("Summarise ticket 4711.", 3, 0, 400)).getAsLong());
    }

    @Test
    void aPromptWithoutTextHasNoFingerprint() {
        assertTrue(PromptFingerprint.of(new Prompt(" \n")).isEmpty());
    }
}
