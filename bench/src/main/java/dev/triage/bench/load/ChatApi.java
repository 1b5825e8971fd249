package dev.triage.bench.load;

import dev.triage.bench.TextEvents;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The API a load run's chat requests use: OpenAI's streamed chat completions (server-sent events) or
 * Ollama's {@code /api/chat} (one JSON object per line). Triage schedules both alike; the replay
 * backend answers both.
 */
public enum ChatApi {
    OPENAI("/v1/chat/completions", line -> {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return TextEvents.lineCarriesText(bytes, bytes.length);
    }),
    OLLAMA("/api/chat", line -> !line.isBlank());

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
