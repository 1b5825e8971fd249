package dev.triage.bench.replay;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers in OpenAI's format: chat completions ({@code chat.completion} and, streamed, server-sent
 * events of {@code chat.completion.chunk}), completions ({@code text_completion}), transcriptions, and
 * errors.
 */
public final class OpenAiAnswers implements Answers {

    private final String id;
    private final long created;
    private final ReplayRequest request;

    OpenAiAnswers(String id, long createdEpochSeconds, ReplayRequest request) {
        this.id = id;
        this.created = createdEpochSeconds;
        this.request = request;
    }

    @Override
    public String streamContentType() {
        return "text/event-stream";
    }

    /** A streamed chat starts with a chunk of the assistant's role and no content. */
    @Override
    public List<String> opening() {
        if (request.api() != ReplayRequest.Api.CHAT) {
            return List.of();
        }
        ObjectNode delta = Answers.JSON.createObjectNode();
        delta.put("role", "assistant");
        delta.put("content", "");
        return List.of(event(Answers.json(chunk(delta, null))));
    }

    @Override
    public String token(int index) {
        if (request.api() == ReplayRequest.Api.CHAT) {
            ObjectNode delta = Answers.JSON.createObjectNode();
            delta.put("content", AnswerText.token(index));
            return event(Answers.json(chunk(delta, null)));
        }
        return event(Answers.json(textChunk(AnswerText.token(index), null)));
    }

    /** The chunk with {@code finish_reason}, the usage chunk when {@code stream_options.include_usage} asks, {@code [DONE]}. */
    @Override
    public List<String> closing() {
        List<String> events = new ArrayList<>();
        events.add(event(Answers.json(request.api() == ReplayRequest.Api.CHAT ? chunk(Answers.JSON.createObjectNode(), finishReason())
                : textChunk("", finishReason()))));
        if (request.includeUsage()) {
            ObjectNode root = header(request.api() == ReplayRequest.Api.CHAT ? "chat.completion.chunk" : "text_completion");
            root.putArray("choices");
            root.set("usage", usage());
            events.add(event(Answers.json(root)));
        }
        events.add(event("[DONE]"));
        return events;
    }

    @Override
    public String bodyContentType() {
        return request.plainText() ? "text/plain" : "application/json";
    }

    @Override
    public String body() {
        String text = AnswerText.text(request.tokens());
        switch (request.api()) {
            case CHAT -> {
                ObjectNode root = header("chat.completion");
                ObjectNode choice = root.putArray("choices").addObject();
                choice.put("index", 0);
                ObjectNode message = choice.putObject("message");
                message.put("role", "assistant");
                message.put("content", text);
                choice.put("finish_reason", finishReason());
                root.set("usage", usage());
                return Answers.json(root);
            }
            case COMPLETION -> {
                ObjectNode root = header("text_completion");
                ObjectNode choice = root.putArray("choices").addObject();
                choice.put("index", 0);
                choice.put("text", text);
                choice.putNull("logprobs");
                choice.put("finish_reason", finishReason());
                root.set("usage", usage());
                return Answers.json(root);
            }
            case TRANSCRIPTION -> {
                if (request.plainText()) {
                    return text;
                }
                ObjectNode root = Answers.JSON.createObjectNode();
                root.put("text", text);
                ObjectNode usage = root.putObject("usage");
                usage.put("type", "tokens");
                usage.put("input_tokens", 0);
                usage.put("output_tokens", request.tokens());
                usage.put("total_tokens", request.tokens());
                return Answers.json(root);
            }
            default -> throw new IllegalStateException(request.api().toString());
        }
    }

    /** An OpenAI-style error body, {@code {"error":{"message","type","param","code":null}}}. */
    public static String error(String message, String type, String param) {
        ObjectNode root = Answers.JSON.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", message);
        error.put("type", type);
        error.put("param", param);
        error.putNull("code");
        return Answers.json(root);
    }

    private ObjectNode chunk(ObjectNode delta, String finishReason) {
        ObjectNode root = header("chat.completion.chunk");
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        choice.set("delta", delta);
        choice.put("finish_reason", finishReason);
        return root;
    }

    private ObjectNode textChunk(String text, String finishReason) {
        ObjectNode root = header("text_completion");
        ArrayNode choices = root.putArray("choices");
        ObjectNode choice = choices.addObject();
        choice.put("index", 0);
        choice.put("text", text);
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        return root;
    }

    private ObjectNode header(String object) {
        ObjectNode root = Answers.JSON.createObjectNode();
        root.put("id", id);
        root.put("object", object);
        root.put("created", created);
        root.put("model", request.model());
        return root;
    }

    private ObjectNode usage() {
        ObjectNode usage = Answers.JSON.createObjectNode();
        usage.put("prompt_tokens", request.promptTokens());
        usage.put("completion_tokens", request.tokens());
        usage.put("total_tokens", request.promptTokens() + request.tokens());
        return usage;
    }

    private static String event(String data) {
        return "data: " + data + "\n\n";
    }

    private String finishReason() {
        return request.cutShort() ? "length" : "stop";
    }
}
