package dev.triage.proxy.preemption;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * How a scheduled route streams its answer, and where each event carries its text. OpenAI's routes
 * send server-sent events ({@code data: {...}} and a blank line, {@code data: [DONE]} at the end);
 * Ollama's native routes send one JSON object a line, the last with {@code "done": true}.
 */
public enum StreamFormat {
    /** {@code /v1/chat/completions}: {@code choices[].delta.content}. */
    OPENAI_CHAT(true),
    /** {@code /v1/completions}: {@code choices[].text}. */
    OPENAI_COMPLETION(true),
    /** {@code /api/chat}: {@code message.content}. */
    OLLAMA_CHAT(false),
    /** {@code /api/generate}: {@code response}. */
    OLLAMA_GENERATE(false);

    private final boolean serverSentEvents;

    StreamFormat(boolean serverSentEvents) {
        this.serverSentEvents = serverSentEvents;
    }

    /** True for server-sent events (an event ends at a blank line), false for JSON lines (at a newline). */
    public boolean serverSentEvents() {
        return serverSentEvents;
    }

    /**
     * The format of a scheduled route's stream, or null for a route whose stream is none of these:
     * llama-server's own {@code /completion} and {@code /completions} stream its native events
     * ({@code content}, {@code stop}), not OpenAI's completion chunks, and are never paused.
     */
    public static StreamFormat of(String path) {
        return switch (path) {
            case "/v1/chat/completions", "/chat/completions" -> OPENAI_CHAT;
            case "/v1/completions" -> OPENAI_COMPLETION;
            case "/api/chat" -> OLLAMA_CHAT;
            case "/api/generate" -> OLLAMA_GENERATE;
            default -> null;
        };
    }

    /** The text one event adds to the answer; empty when it adds none (a role, a finish, usage). */
    String text(JsonNode event) {
        return switch (this) {
            case OPENAI_CHAT -> choicesText(event, "delta");
            case OPENAI_COMPLETION -> choicesText(event, null);
            case OLLAMA_CHAT -> event.path("message").path("content").asText("");
            case OLLAMA_GENERATE -> event.path("response").asText("");
        };
    }

    /** True when a chat event carries a reasoning model's thoughts ({@code delta.reasoning_content}). */
    boolean reasons(JsonNode event) {
        if (this != OPENAI_CHAT) {
            return false;
        }
        for (JsonNode choice : event.path("choices")) {
            if (!choice.path("delta").path("reasoning_content").asText("").isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** True when the event ends the answer: a finish reason, or Ollama's {@code done}. */
    boolean finishes(JsonNode event) {
        if (!serverSentEvents) {
            return event.path("done").asBoolean(false);
        }
        for (JsonNode choice : event.path("choices")) {
            JsonNode reason = choice.get("finish_reason");
            if (reason != null && !reason.isNull()) {
                return true;
            }
        }
        return false;
    }

    private static String choicesText(JsonNode event, String container) {
        StringBuilder text = new StringBuilder();
        for (JsonNode choice : event.path("choices")) {
            JsonNode piece = container == null ? choice.path("text") : choice.path(container).path("content");
            if (piece.isTextual()) {
                text.append(piece.asText());
            }
        }
        return text.toString();
    }
}
