package dev.triage.bench;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Which events of a streamed OpenAI or llama.cpp answer carry generated text: a chat chunk's
 * {@code choices[].delta.content}, a completion's {@code choices[].text}, or llama.cpp's native
 * {@code content}. A role-only first chunk, a finish chunk and a usage chunk carry none, so neither a
 * token count nor a time to first token may take them for a token.
 */
public final class TextEvents {

    private TextEvents() {}

    /** True when {@code event}, one server-sent event's JSON, adds text to the answer. */
    public static boolean carriesText(JsonNode event) {
        for (JsonNode choice : event.path("choices")) {
            if (hasText(choice.path("delta").path("content")) || hasText(choice.path("text"))) {
                return true;
            }
        }
        return hasText(event.path("content"));
    }

    private static boolean hasText(JsonNode node) {
        return node.isTextual() && !node.asText().isEmpty();
    }
}
