package dev.triage.bench.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON of OpenAI's answers: chat completions ({@code chat.completion} and, streamed,
 * {@code chat.completion.chunk}), completions ({@code text_completion}), transcriptions, and errors.
 * Generated text is a fixed cycle of words, one word per token, each with its leading space.
 */
public final class OpenAiAnswers {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] WORDS = {"the", "queue", "moves", "short", "jobs", "first", "while", "long", "ones", "wait"};

    private final String id;
    private final long created;
    private final ReplayRequest request;

    OpenAiAnswers(String id, long createdEpochSeconds, ReplayRequest request) {
        this.id = id;
        this.created = createdEpochSeconds;
        this.request = request;
    }

    /** The text of token {@code index}: a word with its leading space. */
    static String token(int index) {
        return " " + WORDS[index % WORDS.length];
    }

    /** The whole text of {@code tokens} tokens, without the first token's leading space. */
    static String text(int tokens) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < tokens; i++) {
            text.append(token(i));
        }
        return text.toString().stripLeading();
    }

    /** The first streamed chat chunk: the assistant's role, no content yet. */
    String roleChunk() {
        ObjectNode delta = JSON.createObjectNode();
        delta.put("role", "assistant");
        delta.put("content", "");
        return write(chunk(delta, null));
    }

    String tokenChunk(int index) {
        if (request.api() == ReplayRequest.Api.CHAT) {
            ObjectNode delta = JSON.createObjectNode();
            delta.put("content", token(index));
            return write(chunk(delta, null));
        }
        return write(textChunk(token(index), null));
    }

    String finishChunk() {
        if (request.api() == ReplayRequest.Api.CHAT) {
            return write(chunk(JSON.createObjectNode(), finishReason()));
        }
        return write(textChunk("", finishReason()));
    }

    /** The chunk {@code stream_options.include_usage} asks for: no choices, only usage. */
    String usageChunk() {
        ObjectNode root = header(request.api() == ReplayRequest.Api.CHAT ? "chat.completion.chunk" : "text_completion");
        root.putArray("choices");
        root.set("usage", usage());
        return write(root);
    }

    /** The whole answer in one body. */
    String body() {
        String text = text(request.tokens());
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
                return write(root);
            }
            case COMPLETION -> {
                ObjectNode root = header("text_completion");
                ObjectNode choice = root.putArray("choices").addObject();
                choice.put("index", 0);
                choice.put("text", text);
                choice.putNull("logprobs");
                choice.put("finish_reason", finishReason());
                root.set("usage", usage());
                return write(root);
            }
            case TRANSCRIPTION -> {
                if (request.plainText()) {
                    return text;
                }
                ObjectNode root = JSON.createObjectNode();
                root.put("text", text);
                ObjectNode usage = root.putObject("usage");
                usage.put("type", "tokens");
                usage.put("input_tokens", 0);
                usage.put("output_tokens", request.tokens());
                usage.put("total_tokens", request.tokens());
                return write(root);
            }
            default -> throw new IllegalStateException(request.api().toString());
        }
    }

    /** An OpenAI-style error body, {@code {"error":{"message","type","param","code":null}}}. */
    public static String error(String message, String type, String param) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", message);
        error.put("type", type);
        error.put("param", param);
        error.putNull("code");
        return write(root);
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
        ObjectNode root = JSON.createObjectNode();
        root.put("id", id);
        root.put("object", object);
        root.put("created", created);
        root.put("model", request.model());
        return root;
    }

    private ObjectNode usage() {
        ObjectNode usage = JSON.createObjectNode();
        usage.put("prompt_tokens", request.promptTokens());
        usage.put("completion_tokens", request.tokens());
        usage.put("total_tokens", request.promptTokens() + request.tokens());
        return usage;
    }

    private String finishReason() {
        return request.cutShort() ? "length" : "stop";
    }

    private static String write(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always serialises", e);
        }
    }
}
