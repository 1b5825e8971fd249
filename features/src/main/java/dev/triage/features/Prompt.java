package dev.triage.features;

import java.util.Objects;

/**
 * The text of a request that a length estimator reads: for chat, the last user message; for
 * completions, the prompt. Built by {@link ChatBody#prompt}.
 *
 * @param text the prompt text, never null (empty when the request carries none)
 */
public record Prompt(String text) {

    public Prompt {
        Objects.requireNonNull(text, "text");
    }
}
