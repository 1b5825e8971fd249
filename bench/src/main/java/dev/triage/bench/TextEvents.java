package dev.triage.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Arrays;

/**
 * Which events of a streamed OpenAI or llama.cpp answer carry generated text: a chat chunk's
 * {@code choices[].delta.content}, a completion's {@code choices[].text}, or llama.cpp's native
 * {@code content}. A role-only first chunk, a finish chunk and a usage chunk carry none, so neither a
 * token count nor a time to first token may take them for a token.
 */
public final class TextEvents {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] DATA = {'d', 'a', 't', 'a', ':'};

    private TextEvents() {}

    /**
     * True when the first {@code length} bytes of {@code line}, one line of a stream without its newline, are a
     * {@code data:} field whose JSON adds text; {@code [DONE]}, a comment or anything not JSON adds none.
     */
    public static boolean lineCarriesText(byte[] line, int length) {
        if (length < DATA.length || !Arrays.equals(line, 0, DATA.length, DATA, 0, DATA.length)) {
            return false;
        }
        JsonNode event;
        try {
            event = JSON.readTree(line, DATA.length, length - DATA.length);
        } catch (IOException e) {
            return false; // [DONE], or not JSON: its syntax, or bytes in no encoding JSON allows
        }
        return event != null && carriesText(event);
    }

    /** True when {@code event}, one server-sent event's JSON, adds text to the answer. */
    private static boolean carriesText(JsonNode event) {
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
