package dev.triage.proxy.learning;

import dev.triage.features.Prompt;
import dev.triage.model.data.PromptText;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * A prompt's fingerprint: 64 bits of the SHA-256 of its normalized text ({@link PromptText#normalize},
 * with every run of digits read as one digit) and its count of user turns. Two requests of one
 * template that differ only in numbers (an id, a date, a count) share a fingerprint; the text itself
 * is never kept.
 *
 * <p>A cryptographic hash, so that a client cannot craft a prompt whose fingerprint is another's and
 * move that prompt's estimate with answers of its own.
 */
public final class PromptFingerprint {

    private static final Pattern DIGITS = Pattern.compile("\\d+");
    /** One digest per thread: looking one up by name is a third of a fingerprint's time. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(PromptFingerprint::sha256);

    private PromptFingerprint() {}

    /** The prompt's fingerprint; empty for a prompt with no text. */
    public static OptionalLong of(Prompt prompt) {
        if (prompt.text().isBlank()) {
            return OptionalLong.empty();
        }
        String key = DIGITS.matcher(PromptText.normalize(prompt.text())).replaceAll("0") + '\u0000' + prompt.userTurns();
        byte[] digest = SHA_256.get().digest(key.getBytes(StandardCharsets.UTF_8));
        long fingerprint = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            fingerprint = (fingerprint << 8) | (digest[i] & 0xFF);
        }
        return OptionalLong.of(fingerprint);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
