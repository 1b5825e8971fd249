package dev.triage.proxy.preemption;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.api.Json;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * A streamed generation request that can be paused and continued: it knows how to ask the backend,
 * in the configured {@link PreemptionDialect}, for the rest of an answer of which the client has
 * already received a part.
 *
 * <p>A request can be paused when preemption is on and it streams one answer whose text alone is
 * what it produces: {@code "stream": true} on the OpenAI routes (Ollama's stream unless told not
 * to), one choice ({@code n}, {@code best_of} at most 1), no {@code echo}, no {@code tools} (a tool
 * call streams no text to continue from), a string {@code prompt} on completions, and on Ollama's
 * {@code /api/generate} a {@code raw} prompt (a templated prompt cannot be continued without the
 * template). Non-streaming requests are never paused.
 *
 * <pre>{@code
 * Optional<ResumableRequest> resumable = ResumableRequest.of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", body);
 * byte[] rest = resumable.get().continuation("The answer so far", 4);
 * }</pre>
 */
public final class ResumableRequest {

    private static final String[] LIMITS = {"max_tokens", "max_completion_tokens", "n_predict"};

    private final PreemptionDialect dialect;
    private final StreamFormat format;
    private final ObjectNode body;

    private ResumableRequest(PreemptionDialect dialect, StreamFormat format, ObjectNode body) {
        this.dialect = dialect;
        this.format = format;
        this.body = body;
    }

    /** The request, if it can be paused under {@code dialect}; the body is read, not kept or released. */
    public static Optional<ResumableRequest> of(PreemptionDialect dialect, String path, ByteBuf body) {
        StreamFormat format = StreamFormat.of(path);
        if (dialect == PreemptionDialect.OFF || format == null
                || !format.serverSentEvents() && dialect != PreemptionDialect.OLLAMA) {
            return Optional.empty();
        }
        JsonNode json;
        try (InputStream in = new ByteBufInputStream(body.duplicate())) {
            json = Json.MAPPER.readTree(in);
        } catch (JacksonException e) {
            return Optional.empty(); // the sizer answers a malformed body
        } catch (IOException e) {
            throw new UncheckedIOException("reading a body in memory", e);
        }
        if (json instanceof ObjectNode object && continuable(format, object)) {
            return Optional.of(new ResumableRequest(dialect, format, object));
        }
        return Optional.empty();
    }

    private static boolean continuable(StreamFormat format, ObjectNode body) {
        boolean streams = format.serverSentEvents() ? body.path("stream").asBoolean(false) : body.path("stream").asBoolean(true);
        if (!streams || body.path("n").asInt(1) > 1 || body.path("best_of").asInt(1) > 1 || body.path("echo").asBoolean(false)
                || body.has("tools")) {
            return false;
        }
        return switch (format) {
            case OPENAI_CHAT, OLLAMA_CHAT -> body.path("messages").isArray() && !body.path("messages").isEmpty()
                    && (!"assistant".equals(last(body).path("role").asText()) || lastAssistantContent(body) != null);
            case OPENAI_COMPLETION -> body.path("prompt").isTextual();
            case OLLAMA_GENERATE -> body.path("prompt").isTextual() && body.path("raw").asBoolean(false) && !body.has("context");
        };
    }

    public StreamFormat format() {
        return format;
    }

    /**
     * The body of the request that continues the answer after {@code textSoFar}, of which the backend
     * produced {@code tokensSoFar} tokens: the answer so far as a trailing assistant message (chat)
     * or after the prompt (completion, raw generate), and every output limit the request set lowered
     * by the tokens already produced.
     */
    public byte[] continuation(String textSoFar, long tokensSoFar) {
        ObjectNode rest = body.deepCopy();
        switch (format) {
            case OPENAI_CHAT, OLLAMA_CHAT -> {
                String prefill = lastAssistantContent(rest);
                if (prefill != null) {
                    ((ObjectNode) last(rest)).put("content", prefill + textSoFar);
                } else {
                    ((ArrayNode) rest.path("messages")).addObject().put("role", "assistant").put("content", textSoFar);
                }
                if (dialect == PreemptionDialect.VLLM) {
                    rest.put("continue_final_message", true).put("add_generation_prompt", false);
                }
            }
            case OPENAI_COMPLETION, OLLAMA_GENERATE -> rest.put("prompt", rest.path("prompt").asText() + textSoFar);
        }
        for (String limit : LIMITS) {
            lower(rest, limit, tokensSoFar);
        }
        if (rest.path("options") instanceof ObjectNode options) {
            lower(options, "num_predict", tokensSoFar);
        }
        try {
            return Json.MAPPER.writeValueAsBytes(rest);
        } catch (JacksonException e) {
            throw new IllegalStateException("writing a JSON tree", e);
        }
    }

    private static void lower(ObjectNode node, String field, long tokens) {
        JsonNode limit = node.get(field);
        if (limit != null && limit.isIntegralNumber() && limit.asLong() > 0) {
            node.put(field, Math.max(1, limit.asLong() - tokens));
        }
    }

    private static JsonNode last(JsonNode body) {
        JsonNode messages = body.path("messages");
        return messages.path(messages.size() - 1);
    }

    /** The content of a trailing assistant message when it is text (a prefill the client sent), else null. */
    private static String lastAssistantContent(JsonNode body) {
        JsonNode last = last(body);
        return "assistant".equals(last.path("role").asText()) && last.path("content").isTextual() ? last.path("content").asText() : null;
    }
}
