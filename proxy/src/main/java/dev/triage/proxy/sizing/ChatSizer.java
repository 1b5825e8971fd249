package dev.triage.proxy.sizing;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.features.ChatBody;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.api.Json;
import dev.triage.proxy.api.TriageError;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.HttpRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Sizes chat and completion requests (OpenAI's and Ollama's): parses the JSON body, asks the chat
 * estimator about the prompt, caps the estimate by the request's own output limit, and reads the
 * client's {@code priority}. A body that is not a JSON object is rejected with a 400 and never
 * forwarded. Parsing and a microsecond estimator run on the event loop; an expensive estimator runs
 * on its {@link BatchingEstimator}'s thread.
 */
public final class ChatSizer implements RequestSizer {

    private final JobEstimator<Prompt> estimator;
    private final BatchingEstimator batcher;
    private final Function<String, Timer> estimatorTimers;

    /**
     * @param batcher runs {@code estimator} off the event loop; null for an estimator that is cheap
     *     enough to run on it
     * @param estimatorTimers the timer an estimator's time per request is recorded in, by estimator
     *     name (the serving one can change on a reload); for a batched estimator the time includes
     *     the wait for its batch
     */
    public ChatSizer(JobEstimator<Prompt> estimator, BatchingEstimator batcher, Function<String, Timer> estimatorTimers) {
        this.estimator = estimator;
        this.batcher = batcher;
        this.estimatorTimers = estimatorTimers;
    }

    @Override
    public CompletableFuture<SizedJob> size(HttpRequest head, ByteBuf body) {
        JsonNode json = parse(body);
        Prompt prompt = ChatBody.prompt(json);
        OptionalInt cap = ChatBody.maxOutputTokens(json);
        int priority = priority(json);
        double promptTokens = prompt.conversationChars() / SizedJob.CHARS_PER_TOKEN;
        Timer timer = estimatorTimers.apply(estimator.name());
        if (batcher == null) {
            Estimate estimate = timer.record(() -> estimator.estimate(prompt));
            return CompletableFuture.completedFuture(new SizedJob(capped(estimate, cap), priority, promptTokens, cap));
        }
        long started = System.nanoTime();
        return batcher.estimate(prompt)
                .exceptionally(error -> {
                    throw error instanceof RejectedExecutionException || error.getCause() instanceof RejectedExecutionException
                            ? new RequestRejectedException(TriageError.QUEUE_FULL, "too many requests wait for the "
                                    + estimator.name() + " estimator; retry later", null)
                            : new CompletionException(error);
                })
                .thenApply(estimate -> {
                    timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                    return new SizedJob(capped(estimate, cap), priority, promptTokens, cap);
                });
    }

    private static Estimate capped(Estimate estimate, OptionalInt cap) {
        return cap.isPresent() ? estimate.cappedAt(cap.getAsInt()) : estimate;
    }

    private static JsonNode parse(ByteBuf body) {
        JsonNode json;
        try (ByteBufInputStream in = new ByteBufInputStream(body.duplicate())) {
            json = Json.MAPPER.readTree((InputStream) in);
        } catch (JacksonException e) {
            throw new RequestRejectedException(TriageError.INVALID_REQUEST,
                    "the body is not valid JSON: " + e.getOriginalMessage(), null);
        } catch (IOException e) {
            throw new RequestRejectedException(TriageError.INVALID_REQUEST, "the body could not be read: " + e.getMessage(), null);
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
