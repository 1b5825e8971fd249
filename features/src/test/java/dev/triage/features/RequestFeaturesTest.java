package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RequestFeaturesTest {

    @Test
    void lexicalColumnsFollowTheLexicalFeaturesWithTheLengthOnALogScale() {
        String text = "Could you please explain, in detail, how a compiler parses a function?";
        float[] features = RequestFeatures.of(new Prompt(text));
        float[] lexical = LexicalFeatures.of(new Prompt(text));
        assertEquals(RequestFeatures.COUNT, features.length);
        assertEquals((float) Math.log1p(PromptTokens.approximate(text)), features[RequestFeatures.LOG_PROMPT_TOKENS]);
        for (int i = 1; i < LexicalFeatures.COUNT; i++) {
            assertEquals(lexical[i], features[i], LexicalFeatures.NAMES.get(i));
        }
        assertEquals("log_prompt_tokens", RequestFeatures.NAMES.get(RequestFeatures.LOG_PROMPT_TOKENS));
    }

    @Test
    void shapeColumnsDescribeTheConversation() {
        float[] single = RequestFeatures.of(new Prompt("Summarize this."));
        assertEquals(1, single[RequestFeatures.USER_TURNS]);
        assertEquals(0, single[RequestFeatures.LOG_SYSTEM_TOKENS]);
        assertEquals(1, single[RequestFeatures.LAST_TURN_SHARE]);
        assertEquals(single[RequestFeatures.LOG_PROMPT_TOKENS], single[RequestFeatures.LOG_CONVERSATION_TOKENS]);

        float[] chat = RequestFeatures.of(new Prompt("Summarize this.", 3, 400, 4015));
        assertEquals(3, chat[RequestFeatures.USER_TURNS]);
        assertEquals((float) Math.log1p(100), chat[RequestFeatures.LOG_SYSTEM_TOKENS]);
        assertEquals((float) Math.log1p(904), chat[RequestFeatures.LOG_CONVERSATION_TOKENS], "the system prompt left out");
        assertEquals(15f / 3615, chat[RequestFeatures.LAST_TURN_SHARE], 1e-7);
    }

    /** A client's system prompt says what it is, and leaves the conversation's shape as it was. */
    @Test
    void aSystemPromptMovesOnlyItsOwnColumn() {
        float[] bare = RequestFeatures.of(new Prompt("Summarize this."));
        float[] withSystem = RequestFeatures.of(new Prompt("Summarize this.", 1, 400, 415));
        for (int i = 0; i < RequestFeatures.COUNT; i++) {
            if (i != RequestFeatures.LOG_SYSTEM_TOKENS) {
                assertEquals(bare[i], withSystem[i], RequestFeatures.NAMES.get(i));
            }
        }
        assertEquals((float) Math.log1p(100), withSystem[RequestFeatures.LOG_SYSTEM_TOKENS]);
    }

    @Test
    void cueColumnsHoldTheRequestedWordsOnALogScaleAndTheMathCue() {
        float[] essay = RequestFeatures.of(new Prompt("Write a 1,000-word essay on tides."));
        assertEquals((float) Math.log1p(1000), essay[RequestFeatures.LOG_REQUESTED_WORDS]);
        assertEquals(0, essay[RequestFeatures.POSES_MATH]);
        float[] equation = RequestFeatures.of(new Prompt("Solve 2x + 3 = 7."));
        assertEquals(0, equation[RequestFeatures.LOG_REQUESTED_WORDS]);
        assertEquals(1, equation[RequestFeatures.POSES_MATH]);
        assertEquals("poses_math", RequestFeatures.NAMES.get(RequestFeatures.POSES_MATH));
    }

    @Test
    void extractWritesAtAnOffsetAndMatchesOf() {
        Prompt prompt = new Prompt("List ten tips for a job interview", 2, 10, 100);
        float[] rows = new float[2 * RequestFeatures.COUNT];
        RequestFeatures.extract(prompt, rows, RequestFeatures.COUNT);
        float[] second = java.util.Arrays.copyOfRange(rows, RequestFeatures.COUNT, rows.length);
        assertArrayEquals(RequestFeatures.of(prompt), second);
        assertArrayEquals(new float[RequestFeatures.COUNT], java.util.Arrays.copyOf(rows, RequestFeatures.COUNT));
    }

    @Test
    void anImpossibleShapeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Prompt("text", 0, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> new Prompt("text", 1, 5, 6));
    }
}
