package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.QueueSnapshot;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.ContinuingBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Pause and resume through the real proxy: a long stream running on the one slot is paused once it
 * leaves the first level and a new request waits; the new one runs; the long one resumes with a
 * continuation in the backend's dialect, and its client sees a single valid stream.
 */
class PreemptionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PER_TOKEN = Duration.ofMillis(15);
    /**
     * A long answer's tokens: 3 s of them, so that the request sent once it streams is queued, and the
     * pause made, well before it could end on a loaded machine.
     */
    private static final int LONG = 200;

    /** Level 1 ends after 0.3 s of service; progress every 2 tokens; at most one pause per request. */
    private static RunningTriage triage(ContinuingBackend backend, PreemptionDialect dialect) throws InterruptedException {
        return RunningTriage.start("--backend", backend.url(), "--policy", "laps", "--preemption", dialect.label(),
                "--laps", "levels=2,first-level=300ms,window-tokens=2,preemptive-levels=2,max-preemptions=1",
                "--starvation-timeout", "off");
    }

    static String longChat(int tokens) {
        return "{\"model\":\"fake\",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":" + tokens
                + ",\"messages\":[{\"role\":\"system\",\"content\":\"be long\"},{\"role\":\"user\",\"content\":\"write at length\"}]}";
    }

    /** The JSON events of a server-sent event stream, and whether it ended with [DONE] exactly once. */
    static List<JsonNode> events(String stream) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        int done = 0;
        for (String event : stream.split("\n\n")) {
            assertTrue(event.startsWith("data: "), "an event that is not data: " + event);
            String data = event.substring("data: ".length());
            if (data.equals("[DONE]")) {
                done++;
                continue;
            }
            assertEquals(0, done, "an event after [DONE]");
            events.add(JSON.readTree(data));
        }
        assertEquals(1, done, "one [DONE]");
        return events;
    }

    private static String words(int from, int to) {
        StringBuilder words = new StringBuilder();
        for (int i = from; i < to; i++) {
            words.append('w').append(i).append(' ');
        }
        return words.toString();
    }

    /** Sends the long request, then, once it streams, a short one; returns both responses. */
    private static List<HttpResponse<String>> longThenShort(RunningTriage triage, ContinuingBackend backend, String path,
            String longBody, String shortBody) throws Exception {
        int before = backend.bodies().size();
        CompletableFuture<HttpResponse<String>> first = triage.postAsync(path, longBody);
        Await.until("the long request streams", () -> backend.bodies().size() == before + 1);
        CompletableFuture<HttpResponse<String>> second = triage.postAsync(path, shortBody);
        return List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
    }

    private static void assertAllReleased(RunningTriage triage) {
        Await.until("the slot is free and nothing waits",
                () -> triage.chatQueue().busySlots() == 0 && triage.chatQueue().waitingCount() == 0);
    }

    @Test
    void aPausedChatStreamResumesByTokenIdsAsOneValidStream() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP_TOKEN_IDS)) {
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/v1/chat/completions", longChat(LONG),
                    ChatRequests.chat("short one", 5, true));
            assertEquals(200, responses.get(0).statusCode());
            assertEquals(200, responses.get(1).statusCode());

            List<JsonNode> bodies = backend.bodies();
            assertEquals(3, bodies.size(), "long, short, then the long one's continuation");
            assertTrue(bodies.get(0).path("logprobs").asBoolean(), "the first run asks for its tokens' ids");
            assertEquals(1, bodies.get(0).path("top_logprobs").asInt());
            assertEquals("short one", bodies.get(1).path("messages").path(0).path("content").asText());
            // The continuation goes to the completions route: the chat as the server's template
            // renders it, then the ids of the tokens the client has, in order.
            JsonNode continuation = bodies.get(2);
            assertFalse(continuation.has("messages"));
            JsonNode prompt = continuation.path("prompt");
            assertEquals("system: be long\nuser: write at length\n", prompt.path(0).asText());
            int paused = prompt.size() - 1;
            assertTrue(paused > 0 && paused < LONG, "paused after " + paused);
            for (int i = 1; i <= paused; i++) {
                assertEquals(i - 1, prompt.path(i).asInt(), "token ids in order");
            }
            assertEquals(1, backend.templated(), "the template was asked for once");
            assertEquals(LONG - paused, continuation.path("max_tokens").asInt());
            assertTrue(continuation.path("stream").asBoolean());
            assertEquals(1, backend.aborted(), "pausing closed the backend's connection");

            List<JsonNode> events = events(responses.get(0).body());
            StringBuilder content = new StringBuilder();
            int roles = 0;
            int finishes = 0;
            for (JsonNode event : events) {
                assertEquals(events.get(0).path("id").asText(), event.path("id").asText(), "one id");
                assertEquals(events.get(0).path("created").asLong(), event.path("created").asLong());
                assertEquals("chat.completion.chunk", event.path("object").asText(), "the resumed run's completion chunks too");
                for (JsonNode choice : event.path("choices")) {
                    assertFalse(choice.has("logprobs"), "logprobs the client did not ask for");
                    assertFalse(choice.has("text"));
                    roles += choice.path("delta").has("role") ? 1 : 0;
                    finishes += choice.path("finish_reason").isNull() ? 0 : 1;
                    content.append(choice.path("delta").path("content").asText(""));
                }
            }
            assertEquals(1, roles, "one role delta");
            assertEquals(1, finishes, "one finish reason");
            assertEquals(words(0, LONG), content.toString());
            JsonNode usage = events.get(events.size() - 1).path("usage");
            assertEquals(LONG, usage.path("completion_tokens").asInt(), "usage counts both runs");
            assertEquals(10, usage.path("prompt_tokens").asInt(), "the re-read answer is not prompt");
            assertEquals(LONG + 10, usage.path("total_tokens").asInt());

            assertAllReleased(triage);
            String metrics = triage.metricsAfter(2);
            Map<String, String> chat = Map.of("backend", "chat");
            assertEquals(1, PrometheusText.sum(metrics, "triage_preemptions_total", chat));
            assertEquals(1, PrometheusText.sum(metrics, "triage_resumes_total", chat));
            assertEquals(paused, PrometheusText.sum(metrics, "triage_reprefilled_tokens_total", chat));
            // The long answer's usage counts both runs; the short one, without usage, counts its text events.
            assertEquals(LONG + 5, PrometheusText.sum(metrics, "triage_actual_tokens_sum", chat));
        }
    }

    @Test
    void llamaCppByTextContinuesATrailingAssistantMessage() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP)) {
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/v1/chat/completions", longChat(LONG),
                    ChatRequests.chat("short one", 5, true));
            List<JsonNode> bodies = backend.bodies();
            assertFalse(bodies.get(0).has("logprobs"), "the first run as the client sent it");
            JsonNode continuation = bodies.get(2);
            JsonNode messages = continuation.path("messages");
            assertEquals(3, messages.size(), "the original messages and the answer so far");
            assertEquals("assistant", messages.path(2).path("role").asText());
            String soFar = messages.path(2).path("content").asText();
            int paused = soFar.split(" ").length;
            assertEquals(words(0, paused), soFar, "the text the client had when the long request was paused");
            assertEquals(LONG - paused, continuation.path("max_tokens").asInt());
            assertEquals(0, backend.templated());
            StringBuilder content = new StringBuilder();
            for (JsonNode event : events(responses.get(0).body())) {
                content.append(event.path("choices").path(0).path("delta").path("content").asText(""));
            }
            assertEquals(words(0, LONG), content.toString());
            assertAllReleased(triage);
        }
    }

    @Test
    void theQueueViewShowsAPausedRequestWithItsLevelAndService() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP)) {
            CompletableFuture<HttpResponse<String>> first = triage.postAsync("/v1/chat/completions", longChat(LONG));
            Await.until("the long request streams", () -> backend.bodies().size() == 1);
            CompletableFuture<HttpResponse<String>> second = triage.postAsync("/v1/chat/completions",
                    ChatRequests.chat("holds the slot while the view is read", LONG, true));
            Await.until("the long request is paused", () -> triage.chatQueue().pauses() == 1);
            QueueSnapshot snapshot = triage.chatQueue().snapshot().get(5, TimeUnit.SECONDS);
            QueueSnapshot.Waiting paused = snapshot.waiting().get(0);
            assertTrue(paused.paused());
            assertEquals(2, paused.level());
            assertTrue(paused.attainedSeconds() >= 0.3, "at least its first level's quantum: " + paused.attainedSeconds());
            JsonNode view = JSON.readTree(triage.get("/triage/queue").body());
            JsonNode waiting = view.path("backends").path(0).path("waiting").path(0);
            assertTrue(waiting.path("paused").asBoolean(), view.toString());
            assertEquals(2, waiting.path("level").asInt());
            assertEquals(200, first.get(30, TimeUnit.SECONDS).statusCode());
            assertEquals(200, second.get(30, TimeUnit.SECONDS).statusCode());
            assertAllReleased(triage);
        }
    }

    @Test
    void aClientThatLeavesWhilePausedIsWithdrawn() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP);
                RawClient leaving = new RawClient(triage.port())) {
            leaving.post("/v1/chat/completions", longChat(LONG));
            leaving.readLineStartingWith("data:");
            CompletableFuture<HttpResponse<String>> second = triage.postAsync("/v1/chat/completions",
                    ChatRequests.chat("keeps the slot a while", LONG, true));
            Await.until("the long request is paused", () -> triage.chatQueue().pauses() == 1);
            leaving.close();
            Await.until("the paused request is withdrawn", () -> triage.chatQueue().waitingCount() == 0);
            assertEquals(200, second.get(30, TimeUnit.SECONDS).statusCode());
            assertAllReleased(triage);
            assertEquals(2, backend.bodies().size(), "never resumed");
            assertEquals(0, triage.chatQueue().resumes());
        }
    }

    @Test
    void aBackendThatFailsToResumeEndsTheStreamLikeAMidStreamFailure() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP)) {
            backend.failContinuations();
            CompletableFuture<HttpResponse<String>> first = triage.postAsync("/v1/chat/completions", longChat(LONG));
            Await.until("the long request streams", () -> backend.bodies().size() == 1);
            HttpResponse<String> second = triage.postAsync("/v1/chat/completions", ChatRequests.chat("short one", 5, true))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(200, second.statusCode());
            ExecutionException broken = assertThrows(ExecutionException.class, () -> first.get(30, TimeUnit.SECONDS));
            assertTrue(broken.getCause() instanceof java.io.IOException, broken.toString());
            assertEquals(3, backend.bodies().size(), "the continuation was asked for, and refused");
            assertAllReleased(triage);
            String metrics = triage.metricsAfter(2);
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count",
                    Map.of("backend", "chat", "outcome", "upstream_error")));
        }
    }

    @Test
    void nonStreamingRequestsAreNeverPaused() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP)) {
            String whole = "{\"model\":\"fake\",\"stream\":false,\"max_tokens\":40,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/v1/chat/completions", whole,
                    ChatRequests.chat("short one", 5, true));
            assertEquals(200, responses.get(0).statusCode());
            assertEquals(200, responses.get(1).statusCode());
            assertEquals(0, triage.chatQueue().pauses());
            assertEquals(2, backend.bodies().size());
            assertAllReleased(triage);
        }
    }

    @Test
    void withPreemptionOffLapsNeverPauses() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.OFF)) {
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/v1/chat/completions", longChat(40),
                    ChatRequests.chat("short one", 5, true));
            assertEquals(200, responses.get(0).statusCode());
            assertEquals(0, triage.chatQueue().pauses());
            assertEquals(words(0, 40), contentOf(events(responses.get(0).body())));
            assertAllReleased(triage);
        }
    }

    @Test
    void vllmContinuesTheFinalMessageWithoutAGenerationPrompt() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.VLLM, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.VLLM)) {
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/v1/chat/completions", longChat(LONG),
                    ChatRequests.chat("short one", 5, true));
            JsonNode continuation = backend.bodies().get(2);
            assertTrue(continuation.path("continue_final_message").asBoolean(), continuation.toString());
            assertFalse(continuation.path("add_generation_prompt").asBoolean(true), continuation.toString());
            assertEquals(words(0, LONG), contentOf(events(responses.get(0).body())));
            assertAllReleased(triage);
        }
    }

    @Test
    void completionsContinueFromThePromptAndTheTokenIdsSoFar() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.LLAMA_CPP_TOKEN_IDS)) {
            String prompt = "{\"model\":\"fake\",\"stream\":true,\"max_tokens\":" + LONG + ",\"prompt\":\"Once upon a time \"}";
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/v1/completions", prompt,
                    "{\"model\":\"fake\",\"stream\":true,\"max_tokens\":5,\"prompt\":\"short\"}");
            JsonNode continuation = backend.bodies().get(2);
            JsonNode continued = continuation.path("prompt");
            assertEquals("Once upon a time ", continued.path(0).asText());
            int paused = continued.size() - 1;
            assertTrue(paused > 0, "paused after " + paused);
            assertEquals(paused - 1, continued.path(paused).asInt(), "the ids so far, last the last");
            assertEquals(LONG - paused, continuation.path("max_tokens").asInt());
            assertEquals(0, backend.templated(), "a completion's prompt is its own");
            List<JsonNode> events = events(responses.get(0).body());
            StringBuilder text = new StringBuilder();
            int finishes = 0;
            for (JsonNode event : events) {
                assertEquals("cmpl-1", event.path("id").asText());
                assertFalse(event.path("choices").path(0).path("logprobs").isObject(), "logprobs the client did not ask for");
                text.append(event.path("choices").path(0).path("text").asText(""));
                finishes += event.path("choices").path(0).path("finish_reason").isNull() ? 0 : 1;
            }
            assertEquals(words(0, LONG), text.toString());
            assertEquals(1, finishes);
            assertEquals(LONG, events.get(events.size() - 1).path("usage").path("completion_tokens").asInt());
            assertAllReleased(triage);
        }
    }

    @Test
    void ollamaChatContinuesATrailingAssistantMessage() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.OLLAMA, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.OLLAMA)) {
            String chat = "{\"model\":\"fake\",\"options\":{\"num_predict\":" + LONG + "},\"messages\":[{\"role\":\"user\",\"content\":\"go on\"}]}";
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/api/chat", chat,
                    "{\"model\":\"fake\",\"options\":{\"num_predict\":5},\"messages\":[{\"role\":\"user\",\"content\":\"short\"}]}");
            JsonNode continuation = backend.bodies().get(2);
            JsonNode last = continuation.path("messages").path(1);
            assertEquals("assistant", last.path("role").asText());
            int paused = last.path("content").asText().split(" ").length;
            assertEquals(LONG - paused, continuation.path("options").path("num_predict").asInt());
            assertOllamaStream(responses.get(0).body(), "message", LONG);
            assertAllReleased(triage);
        }
    }

    @Test
    void ollamaGenerateContinuesARawPromptAndNeverATemplatedOne() throws Exception {
        try (ContinuingBackend backend = ContinuingBackend.start(PreemptionDialect.OLLAMA, PER_TOKEN);
                RunningTriage triage = triage(backend, PreemptionDialect.OLLAMA)) {
            String raw = "{\"model\":\"fake\",\"raw\":true,\"prompt\":\"[INST] go [/INST] \",\"options\":{\"num_predict\":" + LONG + "}}";
            String shortOne = "{\"model\":\"fake\",\"raw\":true,\"prompt\":\"short\",\"options\":{\"num_predict\":5}}";
            List<HttpResponse<String>> responses = longThenShort(triage, backend, "/api/generate", raw, shortOne);
            JsonNode continuation = backend.bodies().get(2);
            assertTrue(continuation.path("raw").asBoolean());
            assertTrue(continuation.path("prompt").asText().startsWith("[INST] go [/INST] w0 "), continuation.toString());
            assertOllamaStream(responses.get(0).body(), "response", LONG);

            String templated = "{\"model\":\"fake\",\"prompt\":\"go\",\"options\":{\"num_predict\":40}}";
            longThenShort(triage, backend, "/api/generate", templated, shortOne);
            assertEquals(1, triage.chatQueue().pauses(), "a templated prompt is never paused");
            assertAllReleased(triage);
        }
    }

    /** Ollama's lines: the words in order, one done line, last, counting every token. */
    private static void assertOllamaStream(String body, String field, int tokens) throws Exception {
        String[] lines = body.split("\n");
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            JsonNode line = JSON.readTree(lines[i]);
            JsonNode piece = field.equals("message") ? line.path("message").path("content") : line.path("response");
            text.append(piece.asText(""));
            assertEquals(i == lines.length - 1, line.path("done").asBoolean(), "done on the last line only");
            if (i == lines.length - 1) {
                assertEquals(tokens, line.path("eval_count").asInt(), "eval_count counts both runs");
                assertEquals(10, line.path("prompt_eval_count").asInt());
            }
        }
        assertEquals(words(0, tokens), text.toString());
    }

    private static String contentOf(List<JsonNode> events) {
        StringBuilder content = new StringBuilder();
        for (JsonNode event : events) {
            for (JsonNode choice : event.path("choices")) {
                content.append(choice.path("delta").path("content").asText(""));
            }
        }
        return content.toString();
    }
}
