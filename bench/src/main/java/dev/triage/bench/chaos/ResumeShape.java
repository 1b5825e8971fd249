package dev.triage.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Whether a second request for the same client request is the continuation of a paused stream, as
 * Triage's text dialects send one: the client's request as it came, with the answer so far (never
 * empty: a run is paused only once it has produced something) as a trailing assistant message
 * (chat; or appended to the client's own trailing assistant message) or after the prompt
 * (completion, generate), its output limits lowered, and vLLM's two continuation switches. Anything
 * else that arrives twice is a request forwarded twice.
 */
final class ResumeShape {

    private static final List<String> LIMITS = List.of("max_tokens", "max_completion_tokens", "n_predict");
    private static final String OLLAMA_LIMIT = "num_predict";
    private static final List<String> CONTINUATION_SWITCHES = List.of("continue_final_message", "add_generation_prompt");

    private ResumeShape() {}

    static boolean continues(JsonNode first, JsonNode resume) {
        if (!(first instanceof ObjectNode original) || !(resume instanceof ObjectNode next)) {
            return false;
        }
        boolean answerSoFar = original.has("messages") ? continuesMessages(original.path("messages"), next.path("messages"))
                : original.path("prompt").isTextual() && continuesText(original.path("prompt").asText(), next.path("prompt"));
        return answerSoFar && limitsLowered(original, next, LIMITS)
                && limitsLowered(original.path("options"), next.path("options"), List.of(OLLAMA_LIMIT))
                && rest(original).equals(rest(next));
    }

    private static boolean continuesMessages(JsonNode original, JsonNode next) {
        int n = original.size();
        if (n == 0 || !next.isArray()) {
            return false;
        }
        JsonNode last = original.get(n - 1);
        boolean prefilled = last.path("role").asText().equals("assistant") && last.path("content").isTextual();
        int kept = prefilled ? n - 1 : n;
        if (next.size() != kept + 1) {
            return false;
        }
        for (int i = 0; i < kept; i++) {
            if (!original.get(i).equals(next.get(i))) {
                return false;
            }
        }
        JsonNode added = next.get(kept);
        return added.path("role").asText().equals("assistant")
                && continuesText(prefilled ? last.path("content").asText() : "", added.path("content"));
    }

    /** Whether {@code longer} is text that starts with {@code text} and goes on. */
    private static boolean continuesText(String text, JsonNode longer) {
        return longer.isTextual() && longer.asText().length() > text.length() && longer.asText().startsWith(text);
    }

    private static boolean limitsLowered(JsonNode original, JsonNode next, List<String> limits) {
        for (String limit : limits) {
            JsonNode was = original.path(limit);
            JsonNode now = next.path(limit);
            if (was.isIntegralNumber() != now.isIntegralNumber() || was.isIntegralNumber() && now.asLong() > was.asLong()) {
                return false;
            }
        }
        return true;
    }

    /** The request without what a continuation changes. */
    private static ObjectNode rest(ObjectNode request) {
        ObjectNode rest = request.deepCopy();
        rest.remove(List.of("messages", "prompt"));
        rest.remove(LIMITS);
        rest.remove(CONTINUATION_SWITCHES);
        if (rest.path("options") instanceof ObjectNode options) {
            options.remove(OLLAMA_LIMIT);
        }
        return rest;
    }
}
