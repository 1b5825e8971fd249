package dev.triage.bench.replay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.time.Instant;
import java.util.List;

/**
 * Answers in Ollama's format for {@code /api/chat} and {@code /api/generate}: streamed, one JSON object
 * per line ({@code application/x-ndjson}), each token in a line with {@code "done": false}, then a last
 * line with {@code "done": true}, {@code done_reason} and the counts ({@code prompt_eval_count},
 * {@code eval_count}); in one body, the whole text with the same counts. Durations are nanoseconds of
 * the timing model for a batch of one, not measured ones.
 */
final class OllamaAnswers implements Answers {

    private final ReplayRequest request;
    private final String createdAt;
    private final ServiceTimeModel speed;

    OllamaAnswers(ReplayRequest request, Instant created, ServiceTimeModel speed) {
        this.request = request;
        this.createdAt = created.toString();
        this.speed = speed;
    }

    @Override
    public String streamContentType() {
        return "application/x-ndjson";
    }

    @Override
    public List<String> opening() {
        return List.of();
    }

    @Override
    public String token(int index) {
        return line(withText(header(false), AnswerText.token(index)));
    }

    @Override
    public List<String> closing() {
        return List.of(line(withCounts(withText(header(true), ""))));
    }

    @Override
    public String bodyContentType() {
        return "application/json; charset=utf-8";
    }

    @Override
    public String body() {
        return Answers.json(withCounts(withText(header(true), AnswerText.text(request.tokens()))));
    }

    /** An Ollama error body, {@code {"error": message}}. */
    static String error(String message) {
        ObjectNode root = Answers.JSON.createObjectNode();
        root.put("error", message);
        return Answers.json(root);
    }

    /** {@code /api/tags}: the one model the backend answers as. */
    static String tags(String model) {
        ObjectNode root = Answers.JSON.createObjectNode();
        ObjectNode entry = root.putArray("models").addObject();
        entry.put("name", model);
        entry.put("model", model);
        entry.put("modified_at", Instant.EPOCH.toString());
        entry.put("size", 0);
        entry.put("digest", "");
        entry.putObject("details").put("format", "replay");
        return Answers.json(root);
    }

    private ObjectNode header(boolean done) {
        ObjectNode root = Answers.JSON.createObjectNode();
        root.put("model", request.model());
        root.put("created_at", createdAt);
        root.put("done", done);
        return root;
    }

    /** Chat carries text in {@code message.content}, generate in {@code response}. */
    private ObjectNode withText(ObjectNode root, String text) {
        if (request.api() == ReplayRequest.Api.OLLAMA_CHAT) {
            ObjectNode message = root.putObject("message");
            message.put("role", "assistant");
            message.put("content", text);
        } else {
            root.put("response", text);
        }
        return root;
    }

    private ObjectNode withCounts(ObjectNode root) {
        long promptNanos = nanos(speed.baseSeconds());
        long evalNanos = nanos(speed.secondsPerToken() * request.tokens());
        root.put("done_reason", request.cutShort() ? "length" : "stop");
        root.put("total_duration", promptNanos + evalNanos);
        root.put("load_duration", 0);
        root.put("prompt_eval_count", request.promptTokens());
        root.put("prompt_eval_duration", promptNanos);
        root.put("eval_count", request.tokens());
        root.put("eval_duration", evalNanos);
        return root;
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    private static String line(ObjectNode node) {
        return Answers.json(node) + "\n";
    }
}
