package dev.triage.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** What counts as the continuation of a paused stream, and what is a request sent again. */
class ResumeShapeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String CHAT = "{'model':'m','stream':true,'max_tokens':40,'messages':[{'role':'user','content':'hi'}]}";

    @Test
    void aChatContinuesWithTheAnswerSoFarAsATrailingAssistantMessageAndALowerLimit() {
        assertTrue(continues(CHAT, "{'model':'m','stream':true,'max_tokens':30,'messages':[{'role':'user','content':'hi'},"
                + "{'role':'assistant','content':'Hello'}]}"));
        assertTrue(continues(CHAT, "{'model':'m','stream':true,'max_tokens':30,'continue_final_message':true,"
                + "'add_generation_prompt':false,'messages':[{'role':'user','content':'hi'},{'role':'assistant','content':'Hello'}]}"));
    }

    @Test
    void aChatThatEndedWithItsOwnAssistantPrefillContinuesThatMessage() {
        String prefilled = "{'stream':true,'messages':[{'role':'user','content':'hi'},{'role':'assistant','content':'Sure:'}]}";

        assertTrue(continues(prefilled, "{'stream':true,'messages':[{'role':'user','content':'hi'},"
                + "{'role':'assistant','content':'Sure: here'}]}"));
        assertFalse(continues(prefilled, "{'stream':true,'messages':[{'role':'user','content':'hi'},"
                + "{'role':'assistant','content':'Other'}]}"));
    }

    @Test
    void aCompletionOrGenerateContinuesAfterItsPrompt() {
        assertTrue(continues("{'prompt':'Once','max_tokens':9}", "{'prompt':'Once upon','max_tokens':7}"));
        assertTrue(continues("{'prompt':'Once','options':{'num_predict':9}}", "{'prompt':'Once upon','options':{'num_predict':7}}"));
        assertFalse(continues("{'prompt':'Once','options':{'num_predict':9}}", "{'prompt':'Once upon','options':{'num_predict':12}}"));
    }

    @Test
    void theSameRequestAgainOrAChangedOneIsNoContinuation() {
        assertFalse(continues(CHAT, CHAT));
        assertFalse(continues(CHAT, "{'model':'other','stream':true,'max_tokens':30,'messages':[{'role':'user','content':'hi'},"
                + "{'role':'assistant','content':'Hello'}]}"));
        assertFalse(continues(CHAT, "{'model':'m','stream':true,'max_tokens':50,'messages':[{'role':'user','content':'hi'},"
                + "{'role':'assistant','content':'Hello'}]}"));
        assertFalse(continues(CHAT, "{'model':'m','stream':true,'max_tokens':30,'messages':[{'role':'user','content':'HI'},"
                + "{'role':'assistant','content':'Hello'}]}"));
        assertFalse(continues(CHAT, "{'model':'m','stream':true,'messages':[{'role':'user','content':'hi'},"
                + "{'role':'assistant','content':'Hello'}]}"));
        assertFalse(continues("{'prompt':'Once'}", "{'prompt':'Twice upon'}"));
    }

    private static boolean continues(String first, String resume) {
        return ResumeShape.continues(json(first), json(resume));
    }

    private static JsonNode json(String singleQuoted) {
        try {
            return JSON.readTree(singleQuoted.replace('\'', '"'));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
