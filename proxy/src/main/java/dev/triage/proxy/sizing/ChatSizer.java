package dev.triage.proxy.sizing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.features.ChatBody;
import dev.triage.features.Prompt;
import dev.triage.features.PromptTokens;
import dev.triage.model.Estimate;
import dev.triage.proxy.api.Json;
import dev.triage.proxy.api.OllamaApi;
import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.learning.PromptFingerprint;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * Sizes chat and completion requests (OpenAI's and Ollama's): parses the JSON body, asks the chat
 * estimation about the prompt, caps the estimate by the request's own output limit, and reads the
 * client's {@code priority}. A body that is not a JSON object is rejected with a 400 and never
 * forwarded. Parsing runs on the event loop; where the estimate is made is {@link ChatEstimation}'s
 * concern, and it always gives one. A request {@link #check checked} before it is sized is read at
 * once and estimated later.
 */
public final class ChatSizer implements RequestSizer {

    private final ChatEstimation estimation;

    public ChatSizer(ChatEstimation estimation) {
        this.estimation = estimation;
    }

    @Override
    public CompletableFuture<SizedJob> size(HttpRequest head, ByteBuf body) {
        return check(head, body).size();
    }

    @Override
    public CheckedRequest check(HttpRequest head, ByteBuf body) {
        JsonNode json = parse(body);
        Prompt prompt = ChatBody.prompt(json);
        // The backend prefills every message, system prompt and history included.
        boolean ollama = OllamaApi.owns(head.uri());
        ChatBody.Api api = ChatBody.Api.of(head.uri(), ollama);
        // A load (or unload) that Ollama answers at once is the shortest job there is.
        OptionalInt cap = ollama && ChatBody.ollamaLoadsOnly(json) ? OptionalInt.of(1) : ChatBody.maxOutputTokens(json, api);
        return new CheckedChat(estimation, prompt, cap, priority(json),
                PromptTokens.ofChars(prompt.conversationChars()), ChatBody.measuresOneAnswer(json, api));
    }

    /**
     * A chat read and checked, to be estimated. Its fingerprint (a hash of the whole prompt) is taken
     * with its estimate, after a request sent to a free slot has gone.
     */
    private record CheckedChat(ChatEstimation estimation, Prompt prompt, OptionalInt cap, int priority, int promptTokens,
            boolean measured) implements CheckedRequest {

        @Override
        public CompletableFuture<SizedJob> size() {
            return estimation.estimate(prompt).thenApply(this::sized);
        }

        @Override
        public CompletableFuture<SizedJob> sizeSent() {
            return estimation.estimateSent(prompt).thenApply(this::sized);
        }

        private SizedJob sized(Estimated estimated) {
            return new SizedJob(capped(estimated.estimate(), cap), estimated.byFallback(), priority, promptTokens, cap,
                    PromptFingerprint.of(prompt), Optional.of(prompt), estimated.better().then(estimate -> capped(estimate, cap)),
                    measured);
        }
    }

    private static Estimate capped(Estimate estimate, OptionalInt cap) {
        return cap.isPresent() ? estimate.cappedAt(cap.getAsInt()) : estimate;
    }

    private static JsonNode parse(ByteBuf body) {
        JsonNode json;
        try {
            json = Json.readTree(body);
        } catch (IOException e) {
            throw new RequestRejectedException(TriageError.INVALID_REQUEST, "the body is not valid JSON: " + Json.problem(e), null);
        }
        if (json == null || !json.isObject()) {
            throw new RequestRejectedException(TriageError.INVALID_REQUEST, "the body must be a JSON object", null);
        }
        return json;
    }

    /** vLLM's {@code priority}: an integer, lower is sooner, 0 when absent. */
    private static int priority(JsonNode json) {
        JsonNode priority = json.get("priority");
        if (priority == null || priority.isNull()) {
            return 0;
        }
        if (!priority.isIntegralNumber() || !priority.canConvertToInt()) {
            throw new RequestRejectedException(TriageError.INVALID_REQUEST,
                    "priority must be an integer (lower is sooner)", "priority");
        }
        return priority.intValue();
    }
}
