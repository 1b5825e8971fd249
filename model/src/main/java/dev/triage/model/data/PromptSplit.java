package dev.triage.model.data;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Which part of the data a prompt belongs to: 70% train, 10% validation, 20% test, decided by the
 * SHA-256 of its {@link PromptText#normalize normalized text}. The split is by prompt, never by row:
 * every answer to a prompt (from every answering model, in every source) lands on the same side,
 * and the assignment is the same on every machine and in every run.
 */
public enum PromptSplit {
    TRAIN,
    VALIDATION,
    TEST;

    /** Buckets 0-69 train, 70-79 validation, 80-99 test. */
    static final int VALIDATION_FROM = 70;
    static final int TEST_FROM = 80;

    public static PromptSplit of(String prompt) {
        int bucket = bucket(PromptText.normalize(prompt));
        if (bucket < VALIDATION_FROM) {
            return TRAIN;
        }
        return bucket < TEST_FROM ? VALIDATION : TEST;
    }

    static int bucket(String normalizedPrompt) {
        byte[] digest = sha256().digest(normalizedPrompt.getBytes(StandardCharsets.UTF_8));
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (digest[i] & 0xFF);
        }
        return (int) Long.remainderUnsigned(value, 100);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
