package dev.triage.proxy.learning;

import dev.triage.features.Prompt;
import dev.triage.model.data.PromptText;
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

    private PromptFingerprint() {}

    /** The prompt's fingerprint; empty for a prompt with no text. */
    public static OptionalLong of(Prompt prompt) {
        if (prompt.text().isBlank()) {
            return OptionalLong.empty();
        }
        String key = DIGITS.matcher(PromptText.normalize(prompt.text())).replaceAll("0") + '\u0000' + prompt.userTurns();
        return OptionalLong.of(Sha256Prefix.of(key));
    }
}
