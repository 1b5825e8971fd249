package dev.triage.model.data;

import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The key that decides when two prompts are the same prompt: Unicode NFC, lower case, white space
 * collapsed and trimmed. Deduplication and the train/validation/test split both use it, so a prompt
 * that recurs with different spacing or capitals cannot land on both sides of a split.
 */
public final class PromptText {

    private static final Pattern WHITE_SPACE = Pattern.compile("\\s+");

    private PromptText() {}

    public static String normalize(String prompt) {
        String composed = Normalizer.normalize(prompt, Normalizer.Form.NFC);
        return WHITE_SPACE.matcher(composed).replaceAll(" ").trim().toLowerCase(Locale.ROOT);
    }
}
