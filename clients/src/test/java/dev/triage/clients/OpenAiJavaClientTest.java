package dev.triage.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.InternalServerException;
import com.openai.errors.RateLimitException;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.models.Model;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's Java SDK ({@code com.openai:openai-java}, the version the pom pins) against Triage, changing
 * nothing but the base URL: every path a client takes through Triage, and what the SDK makes of
 * Triage's own errors.
 */
class OpenAiJavaClientTest {

    private static ClientStack stack;
    /** One slot, one place in the queue, and a short wait: where 429 and 504 are easy to reach. */
    private static ClientStack tight;

    @BeforeAll
    static void start() throws InterruptedException {
        stack = ClientStack.start("--max-queue", "8");
        tight = ClientStack.start("--max-queue", "1", "--max-queue-wait", "6s");
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
        if (tight != null) {
            tight.close();
        }
    }

    private static OpenAIClient client(ClientStack target, int maxRetries) {
        return OpenAIOkHttpClient.builder().baseUrl(target.url() + "/v1").apiKey("unused").maxRetries(maxRetries)
                .timeout(Duration.ofMinutes(2)).build();
    }

    private static ChatCompletionCreateParams.Builder chat(String prompt, long maxTokens) {
        return ChatCompletionCreateParams.builder().model("replay").addUserMessage(prompt).maxTokens(maxTokens);
    }

    @Test
    void chatIsAnsweredAndScheduledByItsOwnCap() {
        HttpResponseFor<ChatCompletion> response = client(stack, 2).chat().completions().withRawResponse()
                .create(chat("Name three colours.", 5).build());
        ChatCompletion completion = response.parse();
        assertEquals(5, completion.usage().orElseThrow().completionTokens());
        assertEquals(5, completion.choices().get(0).message().content().orElseThrow().split(" ").length);
        assertEquals(ChatCompletion.Choice.FinishReason.LENGTH, completion.choices().get(0).finishReason());
        assertEquals(List.of("sjf"), response.headers().values("x-triage-policy"));
        assertTrue(Double.parseDouble(response.headers().values("x-triage-estimate-tokens").get(0)) <= 5,
                "max_tokens caps the estimate");
    }

    @Test
    void streamedChatArrivesChunkByChunkWithItsUsage() {
        OpenAIClient client = client(stack, 2);
        ChatCompletionCreateParams params = chat("Count to seven.", 7)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
        StringBuilder text = new StringBuilder();
        int contentChunks = 0;
        long usageTokens = -1;
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
            for (Iterator<ChatCompletionChunk> chunks = stream.stream().iterator(); chunks.hasNext(); ) {
                ChatCompletionChunk chunk = chunks.next();
                for (ChatCompletionChunk.Choice choice : chunk.choices()) {
                    String content = choice.delta().content().orElse("");
                    if (!content.isEmpty()) {
                        text.append(content);
                        contentChunks++;
                    }
                }
                if (chunk.usage().isPresent()) {
                    usageTokens = chunk.usage().get().completionTokens();
                }
            }
        }
        assertEquals(7, contentChunks, "one chunk per token");
        assertEquals(7, usageTokens);
        String whole = client.chat().completions().create(chat("Count to seven.", 7).build())
                .choices().get(0).message().content().orElseThrow();
        assertEquals(whole, text.toString().strip(), "streamed and whole answers agree");
    }

    @Test
    void completionsTranscriptionsAndModels() {
        OpenAIClient client = client(stack, 2);
        Completion completion = client.completions().create(CompletionCreateParams.builder()
                .model("replay").prompt("Once upon a time").maxTokens(4).build());
        assertEquals(4, completion.choices().get(0).text().split(" ").length);

        Path audio = Path.of(System.getProperty("triage.audio.fixture"));
        String transcript = client.audio().transcriptions().create(TranscriptionCreateParams.builder()
                .file(audio).model("whisper-1").build()).asTranscription().text();
        assertFalse(transcript.isBlank());

        List<String> models = client.models().list().data().stream().map(Model::id).toList();
        assertEquals(List.of("replay"), models, "passed through to the backend");
    }

    @Test
    void priorityInTheBodyGoesBeforeThePolicyAndArrivalOrder() throws Exception {
        OpenAIClient client = client(stack, 0);
        try (StreamResponse<ChatCompletionChunk> holder = hold(client)) {
            CompletableFuture<ChatCompletion> later = client.async().chat().completions().create(chat("Same question.", 3)
                    .putAdditionalBodyProperty("priority", JsonValue.from(5)).build());
            stack.awaitWaiting(1);
            CompletableFuture<ChatCompletion> sooner = client.async().chat().completions().create(chat("Same question.", 3).build());
            stack.awaitWaiting(2);
            assertEquals(List.of(0, 5), stack.waitingPriorities(), "the later arrival with the lower priority goes first");
            holder.close();
            assertTrue(ClientStack.backendOrder(sooner.get(60, TimeUnit.SECONDS).id()) < ClientStack.backendOrder(later.get(60, TimeUnit.SECONDS).id()),
                    "the backend saw priority 0 first");
        }
    }

    @Test
    void closingAStreamFreesTheSlot() {
        OpenAIClient client = client(stack, 0);
        hold(client).close();
        stack.awaitSlotFree();
        assertEquals(2, client.chat().completions().create(chat("Still there?", 2).build()).usage().orElseThrow().completionTokens());
    }

    @Test
    void fullQueueIsARateLimitErrorAndAQueueTimeoutIsNotRetried() throws Exception {
        OpenAIClient retrying = client(tight, 2);
        OpenAIClient once = client(tight, 0);
        try (StreamResponse<ChatCompletionChunk> holder = hold(once)) {
            double timeoutsBefore = tight.rejections("queue_timeout");
            CompletableFuture<ChatCompletion> waiting = retrying.async().chat().completions().create(chat("Waiting.", 3).build());
            tight.awaitWaiting(1);

            RateLimitException full = assertThrows(RateLimitException.class, () -> once.chat().completions().create(chat("Refused.", 3).build()));
            assertEquals(429, full.statusCode());
            assertEquals("queue_full", full.code().orElseThrow());
            assertTrue(Long.parseLong(full.headers().values("retry-after").get(0)) >= 1);

            InternalServerException late = causeOfType(InternalServerException.class,
                    assertThrows(ExecutionException.class, () -> waiting.get(60, TimeUnit.SECONDS)));
            assertEquals(504, late.statusCode());
            assertEquals("queue_timeout", late.code().orElseThrow());
            assertEquals(List.of("false"), late.headers().values("x-should-retry"));
            tight.awaitRejections("queue_timeout", timeoutsBefore + 1);
            assertEquals(timeoutsBefore + 1, tight.rejections("queue_timeout"), "the SDK honoured x-should-retry: no second wait");
        }
        tight.awaitSlotFree();
    }

    private static <T extends Throwable> T causeOfType(Class<T> type, Throwable error) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
            chain.add(cause);
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + chain, error);
    }

    /** A streamed chat that holds the only slot until it is closed; returned once its first chunk arrived. */
    private static StreamResponse<ChatCompletionChunk> hold(OpenAIClient client) {
        StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(
                chat("Tell me everything.", ClientStack.HOLDING_TOKENS).build());
        assertTrue(stream.stream().iterator().hasNext(), "the holding stream started");
        return stream;
    }
}
