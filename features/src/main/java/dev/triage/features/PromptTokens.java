package dev.triage.features;

/**
 * The prompt's length in tokens, as every part of Triage counts it: characters / 4, rounded up, the
 * approximation Clairvoyant uses for {@code prompt_token_len}. It costs nothing on a 100 KB prompt,
 * and training and serving share this one definition, so a model never sees a length computed
 * differently from the one it was trained on.
 */
public final class PromptTokens {

    private PromptTokens() {}

    public static int approximate(String text) {
        return ofChars(text.length());
    }

    /** The tokens of a text of {@code chars} characters. */
    public static int ofChars(int chars) {
        return (chars + 3) / 4;
    }
}
