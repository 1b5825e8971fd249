package dev.triage.proxy.preemption;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.features.ChatBody;
import dev.triage.proxy.api.Json;
import dev.triage.proxy.api.OllamaApi;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A streamed generation request that can be paused and continued: it knows how to ask the backend,
 * in the configured {@link PreemptionDialect}, for the rest of an answer of which the client has
 * already received a part.
 *
 * <p>A request can be paused when preemption is on and it streams one answer whose text alone is
 * what it produces: {@code "stream": true} on the OpenAI routes (Ollama's stream unless told not
 * to), one choice ({@code n}, {@code best_of} at most 1), no {@code echo}, no {@code tools} (a tool
 * call streams no text to continue from), no output bound to a grammar or schema (Ollama's
 * {@code format}, a {@code response_format} other than text, llama.cpp's {@code grammar} and
 * {@code json_schema}, vLLM's {@code guided_*} and {@code structured_outputs}: a continuation's
 * constraint starts again at its first token, as if nothing had been written, and the client's JSON
 * would break), a string {@code prompt} on completions, and on Ollama's
 * {@code /api/generate} a {@code raw} prompt (a templated prompt cannot be continued without the
 * template). Non-streaming requests are never paused.
 *
 * <p>Text sent back is tokenized again, and not always into the tokens it was generated as: a
 * prefix cache then stops at the first difference and the server reads the rest of the answer again.
 * Under {@code llama.cpp-token-ids}, on the OpenAI routes, every run therefore asks for the generated
 * tokens' ids (as {@code logprobs}, removed from the client's stream unless it asked for them), and a resume sends
 * the prompt followed by those ids to {@code /v1/completions}, whose prompt may mix text and token
 * ids. For chat, the prompt is the conversation as the server's own chat template renders it, which
 * llama-server's {@code /apply-template} tells ({@link #templateRequest}); until it has, the text goes back.
 *
 * <pre>{@code
 * Optional<ResumableRequest> resumable = ResumableRequest.of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/chat/completions", body);
 * StreamSplicer splicer = resumable.get().splicer();
 * ... the first run's body is resumable.get().firstRun(body); its events go through the splicer ...
 * ResumableRequest.Continuation rest = resumable.get().continuation(splicer);
 * }</pre>
 */
public final class ResumableRequest {

    /** llama-server's route that renders a chat body through the model's template. */
    public static final String TEMPLATE_PATH = "/apply-template";

    private static final String COMPLETIONS_PATH = "/v1/completions";
    private static final String[] LIMITS = {"max_tokens", "max_completion_tokens", "n_predict"};

    private final PreemptionDialect dialect;
    private final StreamFormat format;
    private final ObjectNode body;
    /** Resumes send the generated tokens' ids back, not their text. */
    private final boolean byTokenIds;
    /** The client asked for logprobs itself: they stay in its stream. */
    private final boolean clientAsksLogprobs;
    /** The bound the request was sized by ({@link ChatBody#maxOutputTokens}): where the backend stops. */
    private final OptionalInt bound;
    /** The chat as the server's template renders it, once the server has said; null before. */
    private String templated;
    private boolean templateAsked;

    /**
     * The request to a continuation: {@code path} is where it goes, or null for the request's own
     * route; {@code body} is what it asks.
     */
    public record Continuation(String path, byte[] body) {

        /** The URI to send it to, given the client's: the same, or {@code path} with the client's query. */
        public String uri(String clientUri) {
            if (path == null) {
                return clientUri;
            }
            int query = clientUri.indexOf('?');
            return query < 0 ? path : path + clientUri.substring(query);
        }
    }

    private ResumableRequest(PreemptionDialect dialect, StreamFormat format, ObjectNode body, OptionalInt bound) {
        this.dialect = dialect;
        this.format = format;
        this.body = body;
        this.bound = bound;
        this.byTokenIds = dialect == PreemptionDialect.LLAMA_CPP_TOKEN_IDS && format.serverSentEvents();
        this.clientAsksLogprobs = format == StreamFormat.OPENAI_CHAT ? body.path("logprobs").asBoolean(false)
                : body.path("logprobs").asInt(0) > 0;
    }

    /** The request, if it can be paused under {@code dialect}; the body is read, not kept or released. */
    public static Optional<ResumableRequest> of(PreemptionDialect dialect, String path, ByteBuf body) {
        StreamFormat format = StreamFormat.of(path);
        if (dialect == PreemptionDialect.OFF || format == null
                || !format.serverSentEvents() && dialect != PreemptionDialect.OLLAMA) {
            return Optional.empty();
        }
        JsonNode json;
        try {
            json = Json.readTree(body);
        } catch (IOException e) {
            return Optional.empty(); // the sizer answers a malformed body
        }
        if (json instanceof ObjectNode object && continuable(format, object)) {
            return Optional.of(new ResumableRequest(dialect, format, object,
                    ChatBody.maxOutputTokens(object, ChatBody.Api.of(path, OllamaApi.owns(path)))));
        }
        return Optional.empty();
    }

    private static boolean continuable(StreamFormat format, ObjectNode body) {
        boolean streams = format.serverSentEvents() ? body.path("stream").asBoolean(false) : body.path("stream").asBoolean(true);
        if (!streams || body.path("n").asInt(1) > 1 || body.path("best_of").asInt(1) > 1 || body.path("echo").asBoolean(false)
                || body.has("tools") || constrained(body)) {
            return false;
        }
        return switch (format) {
            case OPENAI_CHAT, OLLAMA_CHAT -> body.path("messages").isArray() && !body.path("messages").isEmpty()
                    && (!"assistant".equals(last(body).path("role").asText()) || lastAssistantContent(body) != null);
            case OPENAI_COMPLETION -> body.path("prompt").isTextual();
            case OLLAMA_GENERATE -> body.path("prompt").isTextual() && body.path("raw").asBoolean(false) && !body.has("context");
        };
    }

    /** True when the output is bound to a grammar or schema, in any backend's fields. */
    private static boolean constrained(ObjectNode body) {
        JsonNode responseFormat = body.path("response_format");
        if (responseFormat.isObject() && !"text".equals(responseFormat.path("type").asText())) {
            return true;
        }
        if (body.hasNonNull("format") || body.has("grammar") || body.has("json_schema") || body.has("structured_outputs")) {
            return true;
        }
        for (var names = body.fieldNames(); names.hasNext(); ) {
            if (names.next().startsWith("guided_")) {
                return true;
            }
        }
        return false;
    }

    public StreamFormat format() {
        return format;
    }

    /** A splicer for this request's stream, which drops the logprobs asked for on the client's behalf. */
    public StreamSplicer splicer() {
        return new StreamSplicer(format, byTokenIds && !clientAsksLogprobs);
    }

    /**
     * The body of a run from the start: {@code clientBody} as it is, or, where resumes go by token
     * ids, with the ids asked for. Returns a buffer of its own (the caller releases it).
     */
    public ByteBuf firstRun(ByteBuf clientBody) {
        if (!byTokenIds || clientAsksLogprobs) {
            return clientBody.retainedDuplicate();
        }
        ObjectNode run = body.deepCopy();
        askForTokenIds(run, format);
        return Unpooled.wrappedBuffer(Json.bytes(run));
    }

    /**
     * The body to post to {@link #TEMPLATE_PATH} for the chat's rendered prompt, the first time a
     * resume could use it; empty otherwise. Its answer goes to {@link #templated(byte[])}.
     */
    public Optional<byte[]> templateRequest() {
        if (!byTokenIds || format != StreamFormat.OPENAI_CHAT || templateAsked) {
            return Optional.empty();
        }
        templateAsked = true;
        return Optional.of(Json.bytes(body));
    }

    /** The server's answer to {@link #templateRequest()}: {@code {"prompt": "..."}}; anything else is ignored. */
    public void templated(byte[] answer) {
        try {
            JsonNode prompt = Json.MAPPER.readTree(answer).path("prompt");
            templated = prompt.isTextual() ? prompt.asText() : null;
        } catch (IOException e) {
            templated = null;
        }
    }

    /**
     * The request that continues the answer {@code soFar} holds: by its token ids where the server
     * takes them and every one is known, else with its text as a trailing assistant message (chat)
     * or after the prompt (completion, raw generate). Every output limit the request set is lowered by
     * the tokens already produced.
     */
    public Continuation continuation(StreamSplicer soFar) {
        return continuation(soFar.text(), soFar.tokens(), soFar.tokenIds());
    }

    /** As {@link #continuation(StreamSplicer)}, from the answer's text, its token count and its ids (null when unknown). */
    Continuation continuation(String textSoFar, long tokensSoFar, int[] idsSoFar) {
        String prompt = format == StreamFormat.OPENAI_CHAT ? templated : body.path("prompt").asText();
        if (byTokenIds && idsSoFar != null && prompt != null) {
            return new Continuation(format == StreamFormat.OPENAI_CHAT ? COMPLETIONS_PATH : null,
                    Json.bytes(byTokenIds(prompt, idsSoFar, tokensSoFar)));
        }
        return new Continuation(null, Json.bytes(byText(textSoFar, tokensSoFar)));
    }

    /** A completion of the prompt followed by the answer's token ids, a prompt llama-server takes as it is. */
    private ObjectNode byTokenIds(String prompt, int[] ids, long tokensSoFar) {
        ObjectNode rest = body.deepCopy();
        if (format == StreamFormat.OPENAI_CHAT) {
            rest.remove("messages");
            JsonNode chatLimit = rest.remove("max_completion_tokens");
            if (chatLimit != null && !rest.has("max_tokens")) {
                rest.set("max_tokens", chatLimit);
            }
            rest.put("logprobs", Math.max(1, rest.path("top_logprobs").asInt(1)));
            rest.remove("top_logprobs");
        } else if (!clientAsksLogprobs) {
            askForTokenIds(rest, format);
        }
        ArrayNode mixed = rest.putArray("prompt").add(prompt);
        for (int id : ids) {
            mixed.add(id);
        }
        lowerLimits(rest, tokensSoFar);
        return rest;
    }

    private ObjectNode byText(String textSoFar, long tokensSoFar) {
        ObjectNode rest = body.deepCopy();
        switch (format) {
            case OPENAI_CHAT, OLLAMA_CHAT -> {
                // vLLM continues a trailing assistant message only when asked to; otherwise the first run
                // answered in a turn of its own, which the answer so far must stay.
                boolean continuesPrefill = dialect != PreemptionDialect.VLLM || body.path("continue_final_message").asBoolean(false);
                String prefill = continuesPrefill ? lastAssistantContent(rest) : null;
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
        if (byTokenIds && !clientAsksLogprobs) {
            askForTokenIds(rest, format); // a later resume can go by ids again
        }
        lowerLimits(rest, tokensSoFar);
        return rest;
    }

    /** Asks llama-server to stream each token's id (its most likely alternative comes along: the least it sends). */
    private static void askForTokenIds(ObjectNode run, StreamFormat format) {
        if (format == StreamFormat.OPENAI_CHAT) {
            run.put("logprobs", true).put("top_logprobs", 1);
        } else {
            run.put("logprobs", 1);
        }
    }

    private static void lowerLimits(ObjectNode rest, long tokensSoFar) {
        for (String limit : LIMITS) {
            lower(rest, limit, tokensSoFar);
        }
        if (rest.path("options") instanceof ObjectNode options) {
            lower(options, "num_predict", tokensSoFar);
        }
        // vLLM's floor on the answer's length: as it was, it would exceed the lowered max_tokens (a 400
        // that cuts the client's stream) or hold the answer's end back past the length the client asked.
        JsonNode floor = rest.get("min_tokens");
        if (floor != null && floor.isIntegralNumber() && floor.asLong() > 0) {
            rest.put("min_tokens", Math.max(0, floor.asLong() - tokensSoFar));
        }
    }

    /**
     * Whether {@code tokensSoFar} already reach a limit the client set: the backend has stopped, or is
     * about to, and only its finishing event is still to come, so a resume would ask for more than the
     * client allowed.
     */
    public boolean limitReached(long tokensSoFar) {
        // The bound, not any smaller field beside it: that one may be the field the backend ignores, and a
        // pause refused for it would leave the job never to be paused.
        return bound.isPresent() && tokensSoFar >= bound.getAsInt();
    }

    private static void lower(ObjectNode node, String field, long tokens) {
        OptionalLong limit = ChatBody.wholeNumber(node.path(field));
        if (limit.isPresent() && limit.getAsLong() > 0) {
            node.put(field, Math.max(1, limit.getAsLong() - tokens));
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
