package dev.triage.proxy.preemption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResumableRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Optional<ResumableRequest> of(PreemptionDialect dialect, String path, String body) {
        ByteBuf bytes = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        try {
            return ResumableRequest.of(dialect, path, bytes);
        } finally {
            bytes.release();
        }
    }

    private static JsonNode continuation(PreemptionDialect dialect, String path, String body, String text, long tokens) throws Exception {
        return JSON.readTree(of(dialect, path, body).orElseThrow().continuation(text, tokens, null).body());
    }

    private static JsonNode json(ByteBuf run) throws Exception {
        try {
            return JSON.readTree(run.toString(StandardCharsets.UTF_8));
        } finally {
            run.release();
        }
    }

    private static final String CHAT = "{\"stream\":true,\"max_tokens\":100,\"max_completion_tokens\":90,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Test
    void onlyStreamsOfOneAnswerOfTextArePausable() {
        assertTrue(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT).isPresent());
        assertFalse(of(PreemptionDialect.OFF, "/v1/chat/completions", CHAT).isPresent(), "preemption off");
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/embeddings", CHAT).isPresent(), "no such route");
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT.replace("true", "false")).isPresent(), "whole answers");
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT.replace("{\"stream\"", "{\"n\":2,\"stream\"")).isPresent());
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT.replace("{\"stream\"", "{\"tools\":[],\"stream\"")).isPresent());
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", "{\"stream\":true,\"messages\":[]}").isPresent());
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", "not json").isPresent());
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/completions", "{\"stream\":true,\"prompt\":[\"a\",\"b\"]}").isPresent());
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/completions", "{\"stream\":true,\"echo\":true,\"prompt\":\"a\"}").isPresent());
        assertTrue(of(PreemptionDialect.LLAMA_CPP, "/v1/completions", "{\"stream\":true,\"prompt\":\"a\"}").isPresent());
        for (String nativeRoute : new String[] {"/completion", "/completions"}) {
            assertFalse(of(PreemptionDialect.LLAMA_CPP, nativeRoute, "{\"stream\":true,\"prompt\":\"a\"}").isPresent(),
                    nativeRoute + " streams llama-server's own events, which a splice does not read");
        }
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/api/chat", "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}").isPresent(),
                "Ollama's routes need the Ollama dialect");
        assertTrue(of(PreemptionDialect.OLLAMA, "/api/chat", "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}").isPresent(),
                "Ollama streams unless told not to");
        assertFalse(of(PreemptionDialect.OLLAMA, "/api/chat", "{\"stream\":false,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}").isPresent());
        assertFalse(of(PreemptionDialect.OLLAMA, "/api/generate", "{\"prompt\":\"x\"}").isPresent(), "a templated prompt");
        assertTrue(of(PreemptionDialect.OLLAMA, "/api/generate", "{\"raw\":true,\"prompt\":\"x\"}").isPresent());
    }

    /** A constraint starts again at a continuation's first token: resumed, a JSON answer would hold two beginnings. */
    @Test
    void anAnswerBoundToAGrammarOrSchemaIsNeverPaused() {
        for (String constraint : List.of("\"response_format\":{\"type\":\"json_object\"}", "\"grammar\":\"root ::= [a-z]+\"",
                "\"json_schema\":{}", "\"guided_json\":{}", "\"guided_regex\":\"a+\"", "\"structured_outputs\":{\"choice\":[\"a\"]}")) {
            assertFalse(of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/chat/completions", CHAT.replace("{\"stream\"", "{" + constraint + ",\"stream\""))
                    .isPresent(), constraint);
        }
        assertTrue(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions",
                CHAT.replace("{\"stream\"", "{\"response_format\":{\"type\":\"text\"},\"stream\"")).isPresent(), "plain text");
        assertFalse(of(PreemptionDialect.OLLAMA, "/api/chat", "{\"format\":\"json\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")
                .isPresent());
        assertFalse(of(PreemptionDialect.OLLAMA, "/api/generate", "{\"raw\":true,\"format\":{\"type\":\"object\"},\"prompt\":\"x\"}")
                .isPresent());
    }

    @Test
    void llamaCppContinuesATrailingAssistantMessageWithTheLimitsLowered() throws Exception {
        JsonNode rest = continuation(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT, "Hello the", 2);
        assertEquals("assistant", rest.path("messages").path(1).path("role").asText());
        assertEquals("Hello the", rest.path("messages").path(1).path("content").asText());
        assertEquals(98, rest.path("max_tokens").asInt());
        assertEquals(88, rest.path("max_completion_tokens").asInt());
        assertFalse(rest.has("continue_final_message"));
        assertTrue(rest.path("stream").asBoolean());
    }

    @Test
    void vllmAlsoAsksToContinueTheFinalMessageWithoutAGenerationPrompt() throws Exception {
        JsonNode rest = continuation(PreemptionDialect.VLLM, "/v1/chat/completions", CHAT, "Hello", 1);
        assertTrue(rest.path("continue_final_message").asBoolean());
        assertFalse(rest.path("add_generation_prompt").asBoolean(true));
        assertEquals("Hello", rest.path("messages").path(1).path("content").asText());
    }

    @Test
    void aPrefillTheClientSentIsExtendedNotRepeated() throws Exception {
        String prefilled = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"Sure: \"}]}";
        JsonNode rest = continuation(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", prefilled, "one two", 2);
        assertEquals(2, rest.path("messages").size());
        assertEquals("Sure: one two", rest.path("messages").path(1).path("content").asText());
        assertFalse(of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions",
                "{\"stream\":true,\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}]}").isPresent());
    }

    @Test
    void completionsAndRawGenerateContinueTheirPrompt() throws Exception {
        JsonNode completion = continuation(PreemptionDialect.VLLM, "/v1/completions",
                "{\"stream\":true,\"max_tokens\":5,\"n_predict\":7,\"prompt\":\"Once \"}", "upon", 1);
        assertEquals("Once upon", completion.path("prompt").asText());
        assertEquals(4, completion.path("max_tokens").asInt());
        assertEquals(6, completion.path("n_predict").asInt());
        assertFalse(completion.has("continue_final_message"));
        JsonNode generate = continuation(PreemptionDialect.OLLAMA, "/api/generate",
                "{\"raw\":true,\"prompt\":\"[INST] x [/INST]\",\"options\":{\"num_predict\":10,\"temperature\":0}}", " y", 3);
        assertEquals("[INST] x [/INST] y", generate.path("prompt").asText());
        assertEquals(7, generate.path("options").path("num_predict").asInt());
        assertEquals(0, generate.path("options").path("temperature").asInt());
        JsonNode chat = continuation(PreemptionDialect.OLLAMA, "/api/chat",
                "{\"options\":{\"num_predict\":-1},\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", "a", 1);
        assertEquals(-1, chat.path("options").path("num_predict").asInt(), "no limit stays no limit");
        assertEquals("a", chat.path("messages").path(1).path("content").asText());
    }

    @Test
    void byTokenIdsEveryRunAsksForItsTokensIdsUnlessTheClientDid() throws Exception {
        ResumableRequest chat = of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/chat/completions", CHAT).orElseThrow();
        ByteBuf client = Unpooled.copiedBuffer(CHAT, StandardCharsets.UTF_8);
        JsonNode first = json(chat.firstRun(client));
        assertTrue(first.path("logprobs").asBoolean());
        assertEquals(1, first.path("top_logprobs").asInt());
        assertEquals(100, first.path("max_tokens").asInt(), "the rest as the client sent it");
        assertEquals(1, client.refCnt(), "the client's body is the caller's to release");
        client.release();
        assertTrue(JSON.readTree(chat.continuation("a", 1, null).body()).path("logprobs").asBoolean(), "a resume by text asks too");

        String asked = CHAT.replace("{\"stream\"", "{\"logprobs\":true,\"top_logprobs\":3,\"stream\"");
        ByteBuf askedBody = Unpooled.copiedBuffer(asked, StandardCharsets.UTF_8);
        ByteBuf same = of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/chat/completions", asked).orElseThrow().firstRun(askedBody);
        assertEquals(asked, same.toString(StandardCharsets.UTF_8), "the client's own logprobs are left alone");
        same.release();
        askedBody.release();

        String completion = "{\"stream\":true,\"prompt\":\"x\"}";
        ByteBuf completionBody = Unpooled.copiedBuffer(completion, StandardCharsets.UTF_8);
        assertEquals(1, json(of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/completions", completion).orElseThrow().firstRun(completionBody))
                .path("logprobs").asInt());
        for (PreemptionDialect byText : List.of(PreemptionDialect.LLAMA_CPP, PreemptionDialect.VLLM)) {
            ResumableRequest request = of(byText, "/v1/completions", completion).orElseThrow();
            ByteBuf run = request.firstRun(completionBody);
            assertEquals(completion, run.toString(StandardCharsets.UTF_8), byText + " gets the request as it came");
            run.release();
            assertFalse(JSON.readTree(request.continuation("a", 1, new int[] {1}).body()).has("logprobs"), byText + " resumes by text");
            assertTrue(request.templateRequest().isEmpty());
        }
        completionBody.release();
    }

    @Test
    void llamaCppResumesAChatByTokenIdsOnTheCompletionsRouteOnceTheTemplateIsKnown() throws Exception {
        String body = CHAT.replace("\"max_tokens\":100,", "");
        ResumableRequest chat = of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/chat/completions", body).orElseThrow();
        ResumableRequest.Continuation beforeTemplate = chat.continuation("Hello the", 2, new int[] {7, 9});
        assertEquals(null, beforeTemplate.path(), "without the template, by text on the chat route");
        assertEquals("Hello the", JSON.readTree(beforeTemplate.body()).path("messages").path(1).path("content").asText());

        JsonNode templateRequest = JSON.readTree(chat.templateRequest().orElseThrow());
        assertEquals("hi", templateRequest.path("messages").path(0).path("content").asText(), "the chat as the client sent it");
        assertTrue(chat.templateRequest().isEmpty(), "asked once");
        chat.templated("{\"prompt\":\"<user>hi<assistant>\"}".getBytes(StandardCharsets.UTF_8));

        ResumableRequest.Continuation rest = chat.continuation("Hello the", 2, new int[] {7, 9});
        assertEquals("/v1/completions?key=1", rest.uri("/v1/chat/completions?key=1"));
        JsonNode completion = JSON.readTree(rest.body());
        assertFalse(completion.has("messages"));
        assertEquals("[\"<user>hi<assistant>\",7,9]", completion.path("prompt").toString());
        assertEquals(88, completion.path("max_tokens").asInt(), "the chat's limit, lowered, under the completions name");
        assertFalse(completion.has("max_completion_tokens"));
        assertEquals(1, completion.path("logprobs").asInt());
        assertFalse(completion.has("top_logprobs"));
        assertTrue(completion.path("stream").asBoolean());

        assertEquals(null, chat.continuation("Hello the", 2, null).path(), "ids not all known: by text");
    }

    @Test
    void aCompletionResumesByTokenIdsOnItsOwnRouteAndOnlyLlamaCppAsksForATemplate() throws Exception {
        ResumableRequest completion = of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/completions",
                "{\"stream\":true,\"max_tokens\":5,\"prompt\":\"Once \"}").orElseThrow();
        assertTrue(completion.templateRequest().isEmpty(), "a completion's prompt is its own");
        ResumableRequest.Continuation rest = completion.continuation("upon", 1, new int[] {42});
        assertEquals("/v1/completions", rest.uri("/v1/completions"));
        JsonNode body = JSON.readTree(rest.body());
        assertEquals("[\"Once \",42]", body.path("prompt").toString());
        assertEquals(4, body.path("max_tokens").asInt());
        assertEquals(1, body.path("logprobs").asInt());

    }

    @Test
    void aTemplateAnswerThatIsNotOneLeavesResumesByText() throws Exception {
        ResumableRequest chat = of(PreemptionDialect.LLAMA_CPP_TOKEN_IDS, "/v1/chat/completions", CHAT).orElseThrow();
        chat.templated("<html>not found</html>".getBytes(StandardCharsets.UTF_8));
        assertEquals(null, chat.continuation("a", 1, new int[] {1}).path());
        chat.templated("{\"prompt\":3}".getBytes(StandardCharsets.UTF_8));
        assertEquals(null, chat.continuation("a", 1, new int[] {1}).path());
    }

    @Test
    void aLimitNeverFallsBelowOneToken() throws Exception {
        JsonNode rest = continuation(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT, "x", 500);
        assertEquals(1, rest.path("max_tokens").asInt());
    }

    /** vLLM refuses a min_tokens above max_tokens: the floor comes down with the limit. */
    @Test
    void vllmsMinTokensIsLoweredWithTheLimit() throws Exception {
        String body = "{\"stream\":true,\"max_tokens\":100,\"min_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        JsonNode rest = continuation(PreemptionDialect.VLLM, "/v1/chat/completions", body, "Hello", 60);
        assertEquals(40, rest.path("max_tokens").asInt());
        assertEquals(0, rest.path("min_tokens").asInt());
        assertEquals(30, continuation(PreemptionDialect.VLLM, "/v1/chat/completions", body, "Hello", 20).path("min_tokens").asInt());
    }

    /**
     * Tokens that reach the bound the request was sized by leave only the finishing event to come:
     * nothing is left to resume. A smaller field beside it, or one the API does not read, is no bound.
     */
    @Test
    void aLimitIsReachedAtTheBoundTheRequestWasSizedBy() {
        ResumableRequest chat = of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", CHAT).orElseThrow();
        assertFalse(chat.limitReached(99), "max_completion_tokens 90 may be the field the backend ignores");
        assertTrue(chat.limitReached(100));
        ResumableRequest generate = of(PreemptionDialect.OLLAMA, "/api/generate",
                "{\"stream\":true,\"raw\":true,\"prompt\":\"Once\",\"max_tokens\":1,\"options\":{\"num_predict\":7}}").orElseThrow();
        assertFalse(generate.limitReached(6), "Ollama reads no max_tokens");
        assertTrue(generate.limitReached(7));
        ResumableRequest unlimited = of(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions",
                "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").orElseThrow();
        assertFalse(unlimited.limitReached(1_000_000));
    }

    @Test
    void aLimitWrittenAsADecimalIsLoweredToo() throws Exception {
        String body = "{\"stream\":true,\"max_tokens\":100.0,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        assertEquals(60, continuation(PreemptionDialect.LLAMA_CPP, "/v1/chat/completions", body, "Hello", 40).path("max_tokens").asInt());
    }

    /** Without continue_final_message, vLLM answered a trailing assistant message in a new turn: the resume keeps the two apart. */
    @Test
    void vllmContinuesAClientsAssistantMessageOnlyWhenTheClientAskedItTo() throws Exception {
        String turns = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"assistant\",\"content\":\"Hello.\"}]}";
        JsonNode answered = continuation(PreemptionDialect.VLLM, "/v1/chat/completions", turns, " How", 1);
        assertEquals(3, answered.path("messages").size());
        assertEquals("Hello.", answered.path("messages").path(1).path("content").asText());
        assertEquals(" How", answered.path("messages").path(2).path("content").asText());
        String asked = turns.replace("{\"stream\":true,", "{\"stream\":true,\"continue_final_message\":true,\"add_generation_prompt\":false,");
        JsonNode continued = continuation(PreemptionDialect.VLLM, "/v1/chat/completions", asked, " How", 1);
        assertEquals(2, continued.path("messages").size());
        assertEquals("Hello. How", continued.path("messages").path(1).path("content").asText());
    }
}
