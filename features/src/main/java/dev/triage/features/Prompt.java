package dev.triage.features;

import java.util.Objects;

/**
 * What a length estimator reads of a request: the text it answers (for chat, the last user
 * message; for completions, the prompt) and the shape of the conversation around it. Built by
 * {@link ChatBody#prompt}; training builds the same from its data, so both see one definition.
 *
 * <pre>{@code
 * Prompt single = new Prompt("Write an essay on tides.");           // one user turn, nothing else
 * Prompt chat = ChatBody.prompt(body);                              // turns and system prompt included
 * }</pre>
 *
 * @param text the prompt text, never null (empty when the request carries none)
 * @param userTurns user messages in the request, this one included (1 for a completion)
 * @param systemChars characters of the system (and developer) messages
 * @param conversationChars characters of every message's text, system included; at least {@code text}'s
 */
public record Prompt(String text, int userTurns, int systemChars, int conversationChars) {

    public Prompt {
        Objects.requireNonNull(text, "text");
        if (userTurns < 1 || systemChars < 0 || conversationChars < text.length() + systemChars) {
            throw new IllegalArgumentException("userTurns " + userTurns + ", systemChars " + systemChars + ", conversationChars "
                    + conversationChars + " for a text of " + text.length() + " (expected: >= 1, >= 0, >= text + system)");
        }
    }

    /** A request of one user message and nothing else: a completion, or a first chat turn without a system prompt. */
    public Prompt(String text) {
        this(text, 1, 0, text.length());
    }

    /**
     * The share of the characters of the conversation's user and assistant messages that the answered
     * text takes (1 for a single message, with a system prompt or without).
     */
    public double lastTurnShare() {
        int turns = conversationChars - systemChars;
        return turns == 0 ? 1 : (double) text.length() / turns;
    }
}
