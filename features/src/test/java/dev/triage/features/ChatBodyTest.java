package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    void promptTokensCountEveryMessageTheBackendPrefills() throws Exception {
        JsonNode chat = body("""
                {"messages":[{"role":"system","content":"Be terse."},
                             {"role":"user","content":"first question"},
                             {"role":"assistant","content":"an answer"},
                             {"role":"user","content":"Write an essay on tides."}]}""");
        // ceil(9 / 4) + ceil(14 / 4) + ceil(9 / 4) + ceil(24 / 4)
        assertEquals(3 + 4 + 3 + 6, ChatBody.promptTokens(chat));
        assertEquals(3, ChatBody.promptTokens(body("{\"prompt\":\"Once upon\"}")));
        assertEquals(0, ChatBody.promptTokens(body("{\"model\":\"m\"}")));
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
    void outputLimitIsTheSmallestPositiveCap() throws Exception {
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{}")));
        assertEquals(OptionalInt.of(50), ChatBody.maxOutputTokens(body("{\"max_tokens\":50}")));
        assertEquals(OptionalInt.of(30),
                ChatBody.maxOutputTokens(body("{\"max_tokens\":50,\"max_completion_tokens\":30}")));
        assertEquals(OptionalInt.of(64), ChatBody.maxOutputTokens(body("{\"options\":{\"num_predict\":64}}")));
        assertEquals(OptionalInt.of(12), ChatBody.maxOutputTokens(body("{\"n_predict\":12}")));
        // Ollama: -1 is "until done", -2 "fill the context": no cap.
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"options\":{\"num_predict\":-1}}")));
        assertEquals(OptionalInt.empty(), ChatBody.maxOutputTokens(body("{\"max_tokens\":\"50\"}")));
    }
}
