package dev.triage.bench.load;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.bench.TextEvents;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The API a load run's chat requests use: OpenAI's streamed chat completions (server-sent events) or
 * Ollama's {@code /api/chat} (one JSON object per line). Triage schedules both alike; the replay
 * backend answers both.
 */
public enum ChatApi {
    OPENAI("/v1/chat/completions", ChatApi::eventCarriesText),
    OLLAMA("/api/chat", line -> !line.isBlank());

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String path;
    private final Predicate<String> carriesToken;

    ChatApi(String path, Predicate<String> carriesToken) {
        this.path = path;
        this.carriesToken = carriesToken;
    }

    /** The chat route. */
    public String path() {
        return path;
    }

    /** Whether a line of a streamed answer is an event that carries a token: the first such line is the first token. */
    boolean carriesToken(String line) {
        return carriesToken.test(line);
    }

    /** A server-sent event's line with generated text: not a role-only first chunk, a finish or {@code [DONE]}. */
    private static boolean eventCarriesText(String line) {
        if (!line.startsWith("data:")) {
            return false;
        }
        try {
            JsonNode event = JSON.readTree(line.substring("data:".length()));
            return event != null && TextEvents.carriesText(event);
        } catch (JacksonException e) {
            return false; // [DONE]
        }
    }

    /** {@code openai} or {@code ollama}. */
    public static ChatApi parse(String name) {
        for (ChatApi api : values()) {
            if (api.name().toLowerCase(Locale.ROOT).equals(name)) {
                return api;
            }
        }
        throw new IllegalArgumentException("api: " + name + " (expected: openai or ollama)");
    }
}
