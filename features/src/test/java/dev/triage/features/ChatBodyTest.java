package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ChatBodyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode body(String json) throws Exception {
        return JSON.readTree(json);
    }

    @Test
    void chatPromptIsTheLastUserMessage() throws Exception {
        JsonNode chat = body("""
                {"messages":[{"role":"system","content":"Be terse."},
                             {"role":"user","content":"first question"},
                             {"role":"assistant","content":"an answer"},
                             {"role":"user","content":"Write an essay on tides."},
                             {"role":"assistant","content":"prefill"}]}""");
        assertEquals("Write an essay on tides.", ChatBody.prompt(chat).text());
    }

    @Test
    void chatPromptCarriesTheConversationsShape() throws Exception {
        JsonNode chat = body("""
                {"messages":[{"role":"system","content":"Be terse."},
                             {"role":"user","content":"first question"},
                             {"role":"assistant","content":"an answer"},
                             {"role":"user","content":"Write an essay on tides."}]}""");
        Prompt prompt = ChatBody.prompt(chat);
        assertEquals(2, prompt.userTurns());
        assertEquals("Be terse.".length(), prompt.systemChars());
        assertEquals("Be terse.first questionan answerWrite an essay on tides.".length(), prompt.conversationChars());
        assertEquals(24.0 / 47, prompt.lastTurnShare(), 1e-9);
    }

    @Test
    void aSingleUserMessageIsTheWholeConversation() throws Exception {
        Prompt prompt = ChatBody.prompt(body("{\"messages\":[{\"role\":\"user\",\"content\":\"Hi there\"}]}"));
        assertEquals(new Prompt("Hi there"), prompt);
        assertEquals(1.0, prompt.lastTurnShare());
    }

    @Test
    void ollamaGenerateSystemFieldIsTheSystemPrompt() throws Exception {
        Prompt prompt = ChatBody.prompt(body("{\"prompt\":\"Why is the sky blue?\",\"system\":\"You are a poet.\"}"));
        assertEquals(new Prompt("Why is the sky blue?", 1, 15, 35), prompt);
    }

    @Test
    void arrayContentKeepsOnlyTheTextParts() throws Exception {
        JsonNode chat = body("""
                {"messages":[{"role":"user","content":[
                    {"type":"text","text":"Describe this image"},
                    {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},
                    {"type":"text","text":"in detail."}]}]}""");
        assertEquals("Describe this image\nin detail.", ChatBody.prompt(chat).text());
    }

    @Test
    void completionsAndOllamaGenerateReadThePromptField() throws Exception {
        assertEquals("Once upon a time", ChatBody.prompt(body("{\"prompt\":\"Once upon a time\"}")).text());
        assertEquals("a\nb", ChatBody.prompt(body("{\"prompt\":[\"a\",\"b\"]}")).text());
    }

    @Test
    void missingOrOddPromptsAreEmpty() throws Exception {
        assertEquals("", ChatBody.prompt(body("{}")).text());
        assertEquals("", ChatBody.prompt(body("{\"messages\":[{\"role\":\"system\",\"content\":\"x\"}]}")).text());
        assertEquals("", ChatBody.prompt(body("{\"prompt\":[1,2,3]}")).text());
        assertEquals("", ChatBody.prompt(body("{\"messages\":[{\"role\":\"user\",\"content\":null}]}")).text());
    }

    @Test
    void outputLimitIsTheLargestCapOfTheFieldsTheApiReads() throws Exception {
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(50), ChatBody.maxOutputTokens(body("{\"max_tokens\":50}"), ChatBody.Api.OPENAI));
        // vLLM reads max_completion_tokens, llama.cpp n_predict first: the request may run to the largest.
        assertEquals(OptionalInt.of(50),
                ChatBody.maxOutputTokens(body("{\"max_tokens\":50,\"max_completion_tokens\":30}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(4000),
                ChatBody.maxOutputTokens(body("{\"max_completion_tokens\":4000,\"max_tokens\":1}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(12), ChatBody.maxOutputTokens(body("{\"n_predict\":12}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"n_predict\":-1,\"max_tokens\":1}"), ChatBody.Api.OPENAI),
                "llama.cpp reads n_predict: no limit");
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_tokens\":\"50\"}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(100), ChatBody.maxOutputTokens(body("{\"max_tokens\":100.0}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_tokens\":100.5}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(Integer.MAX_VALUE), ChatBody.maxOutputTokens(body("{\"max_tokens\":1e30}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(64), ChatBody.maxOutputTokens(body("{\"options\":{\"num_predict\":64.0}}"), ChatBody.Api.OLLAMA));
        assertEquals(OptionalInt.of(64), ChatBody.maxOutputTokens(body("{\"options\":{\"num_predict\":64}}"), ChatBody.Api.OLLAMA));
        // Ollama: -1 is "until done", -2 "fill the context": no cap.
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"options\":{\"num_predict\":-1}}"), ChatBody.Api.OLLAMA));
        // Each API reads only its own fields: the other's would let an unbounded request pass for short.
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_tokens\":1,\"n_predict\":1}"), ChatBody.Api.OLLAMA));
        assertEquals(OptionalInt.of(900),
                ChatBody.maxOutputTokens(body("{\"max_tokens\":1,\"options\":{\"num_predict\":900}}"), ChatBody.Api.OLLAMA));
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"options\":{\"num_predict\":1}}"), ChatBody.Api.OPENAI));
    }

    @Test
    void anOllamaRequestWithNoMessagesOrPromptOnlyLoadsTheModel() throws Exception {
        assertTrue(ChatBody.ollamaLoadsOnly(body("{\"model\":\"m\"}")));
        assertTrue(ChatBody.ollamaLoadsOnly(body("{\"model\":\"m\",\"messages\":[],\"keep_alive\":\"10m\"}")));
        for (String unload : new String[] {"0", "\"0\"", "\"0s\"", "\"0m\""}) {
            assertFalse(ChatBody.ollamaLoadsOnly(body("{\"model\":\"m\",\"keep_alive\":" + unload + "}")), "unloads: " + unload);
        }
        assertTrue(ChatBody.ollamaLoadsOnly(body("{\"model\":\"m\",\"prompt\":\"\"}")));
        assertFalse(ChatBody.ollamaLoadsOnly(body("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")));
        assertFalse(ChatBody.ollamaLoadsOnly(body("{\"model\":\"m\",\"prompt\":\"hi\"}")));
    }

    @Test
    void theResponsesApisInputAndInstructionsAreItsPromptAndSystemPrompt() throws Exception {
        Prompt plain = ChatBody.prompt(body("{\"input\":\"Write a haiku.\",\"instructions\":\"Be brief.\"}"));
        assertEquals("Write a haiku.", plain.text());
        assertEquals("Be brief.".length(), plain.systemChars());
        Prompt listed = ChatBody.prompt(body("""
                {"instructions":"Be brief.","input":[{"role":"user","content":"first"},
                 {"role":"assistant","content":"ok"},
                 {"type":"message","role":"user","content":[{"type":"input_text","text":"second"}]}]}"""));
        assertEquals("second", listed.text());
        assertEquals(2, listed.userTurns());
        assertEquals("Be brief.".length(), listed.systemChars());
        assertEquals(OptionalInt.of(64), ChatBody.maxOutputTokens(body("{\"input\":\"x\",\"max_output_tokens\":64}"), ChatBody.Api.RESPONSES));
        assertEquals("Write an essay on Rome.", ChatBody.prompt(body("""
                {"prompt":{"id":"pmpt_1","version":"2"},"input":"Write an essay on Rome."}""")).text(),
                "a stored prompt's reference is no text: the input is the prompt");
    }

    /** An agent's history: what the model reads before it answers, as the same chat on /v1/chat/completions counts it. */
    @Test
    void aConversationCountsEarlierAnswersToolCallsAndToolResults() throws Exception {
        String answer = "x".repeat(2_000);
        String result = "y".repeat(3_000);
        Prompt responses = ChatBody.prompt(body("""
                {"input":[{"role":"user","content":"q1"},
                 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"%s"},{"type":"refusal","refusal":"no"}]},
                 {"type":"function_call","call_id":"c1","name":"f","arguments":"{\\"a\\":1}"},
                 {"type":"function_call_output","call_id":"c1","output":"%s"},
                 {"role":"user","content":"q2"}]}""".formatted(answer, result)));
        Prompt chat = ChatBody.prompt(body("""
                {"messages":[{"role":"user","content":"q1"},
                 {"role":"assistant","content":"%s\\nno","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]},
                 {"role":"tool","tool_call_id":"c1","content":"%s"},
                 {"role":"user","content":"q2"}]}""".formatted(answer, result)));
        int expected = 2 + answer.length() + 1 + 2 + "{\"a\":1}".length() + result.length() + 2;
        assertEquals(expected, responses.conversationChars());
        assertEquals(expected, chat.conversationChars());
        assertEquals("q2", responses.text());
        assertEquals(2, responses.userTurns());
        Prompt ollama = ChatBody.prompt(body("""
                {"messages":[{"role":"user","content":"q1"},
                 {"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},
                 {"role":"user","content":"q2"}]}"""));
        assertEquals(2 + "{\"a\":1}".length() + 2, ollama.conversationChars(), "Ollama's arguments are an object");
    }

    @Test
    void aRequestMayAskForSeveralAnswers() throws Exception {
        assertEquals(1, ChatBody.answers(body("{\"messages\":[]}"), ChatBody.Api.OPENAI));
        assertEquals(3, ChatBody.answers(body("{\"n\":3,\"messages\":[]}"), ChatBody.Api.OPENAI));
        assertEquals(1, ChatBody.answers(body("{\"n\":0,\"messages\":[]}"), ChatBody.Api.OPENAI));
        assertEquals(4, ChatBody.answers(body("{\"n\":2,\"prompt\":[\"a\",\"b\"]}"), ChatBody.Api.OPENAI), "two prompts, two answers each");
        assertEquals(2, ChatBody.answers(body("{\"prompt\":[[1,2],[3,4]]}"), ChatBody.Api.OPENAI));
        assertEquals(1, ChatBody.answers(body("{\"prompt\":[1,2,3]}"), ChatBody.Api.OPENAI), "one prompt of token ids");
    }

    /** Each API's own fields: one another API reads would let a request that runs unbounded pass for short. */
    @Test
    void eachApiIsCappedByItsOwnFields() throws Exception {
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_output_tokens\":1}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_tokens\":1}"), ChatBody.Api.RESPONSES));
        assertEquals(ChatBody.Api.RESPONSES, ChatBody.Api.of("/v1/responses?x=1", false));
        assertEquals(ChatBody.Api.OPENAI, ChatBody.Api.of("/completion", false));
        assertEquals(ChatBody.Api.OLLAMA, ChatBody.Api.of("/api/chat", true));
        assertEquals(1, ChatBody.answers(body("{\"n\":4}"), ChatBody.Api.OLLAMA), "Ollama has no n");
        assertEquals(1, ChatBody.answers(body("{\"n\":4}"), ChatBody.Api.RESPONSES), "nor has the Responses API");
        assertEquals(ChatBody.Api.RESPONSES, ChatBody.Api.of("/responses", false));
        assertEquals(2, ChatBody.answers(body("{\"n\":2.0}"), ChatBody.Api.OPENAI));
        assertEquals(1, ChatBody.answers(body("{\"prompt\":[\"Once\",12,34]}"), ChatBody.Api.OPENAI), "llama.cpp's mix of text and ids");
    }

    /** Caps that disagree leave where the backend stops to the field it reads: an answer below the bound may be cut short. */
    @Test
    void anAnswerIsMeasuredWhenItIsOneUnderCapsThatAgree() throws Exception {
        assertTrue(ChatBody.measuresOneAnswer(body("{\"max_tokens\":50}"), ChatBody.Api.OPENAI));
        assertTrue(ChatBody.measuresOneAnswer(body("{\"max_tokens\":50,\"max_completion_tokens\":50.0}"), ChatBody.Api.OPENAI));
        assertFalse(ChatBody.measuresOneAnswer(body("{\"max_completion_tokens\":50,\"max_tokens\":2000}"), ChatBody.Api.OPENAI));
        assertFalse(ChatBody.measuresOneAnswer(body("{\"n_predict\":-1,\"max_tokens\":100}"), ChatBody.Api.OPENAI));
        assertTrue(ChatBody.measuresOneAnswer(body("{\"n_predict\":-1,\"max_tokens\":0}"), ChatBody.Api.OPENAI), "no limit, twice");
        assertTrue(ChatBody.measuresOneAnswer(body("{\"max_tokens\":1,\"options\":{\"num_predict\":9}}"), ChatBody.Api.OLLAMA));
        assertFalse(ChatBody.measuresOneAnswer(body("{\"n\":3}"), ChatBody.Api.OPENAI));
    }

    @Test
    void aLimitPastSixtyFourBitsIsNoSmallLimit() throws Exception {
        // 2^64 + 1, whose low 64 bits read as 1.
        assertEquals(OptionalInt.of(Integer.MAX_VALUE), ChatBody.maxOutputTokens(body("{\"max_tokens\":18446744073709551617}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.of(Integer.MAX_VALUE), ChatBody.maxOutputTokens(body("{\"max_tokens\":18446744073709551617,\"n_predict\":40}"), ChatBody.Api.OPENAI));
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_tokens\":-18446744073709551615}"), ChatBody.Api.OPENAI));
    }
}
