package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PromptCuesTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            Write a 1,000-word story about a lighthouse.             | 1000
            Summarize the article in 50 words or fewer.              | 50
            I need a 2k words essay on tides                         | 2000
            Answer in 5 WORDS                                        | 5
            Write 300 - 500 words on the topic.                      | 500
            Compare them in 200 words, then give a 1500 word report. | 1500
            List 10 ideas for a party.                               | 0
            Count the words in this sentence.                        | 0
            In 1,00 words                                            | 0
            a12 words                                                | 0
            """)
    void requestedWordsAreTheLargestCountBeforeWords(String text, long words) {
        assertEquals(words, PromptCues.requestedWords(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "Solve for x: 3x + 2 = 11",
        "What is 17*23?",
        "Find n such that n^2 is 144",
        "If x = 4, what is y?",
        "A train leaves at noon. How many hours until it arrives?",
        "Prove that the square root of two is irrational.",
        "What is the probability of rolling two sixes?",
        "Compute the integral of sin from 0 to pi",
        "2 \u00d7 3",
        "What is 7 - x when x is 2?",
    })
    void aMathematicalProblemIsRecognized(String text) {
        assertTrue(PromptCues.posesMath(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "Write a poem about the sea.",
        "Explain how a compiler parses a function.",
        "I have 3 cats and 2 dogs.",
        "Plan a 3-day trip and write a 1,000-word diary of it.",
        "How is the weather in many places?",
        "how\nmanyfold",
        "Reprove the proofreader",
        "a = b",
        "",
    })
    void otherTextIsNot(String text) {
        assertFalse(PromptCues.posesMath(text), text);
    }

    /** A cue in the middle of a long prompt, in pasted material, is not read; at its head or tail it is. */
    @ParameterizedTest
    @CsvSource({"2, true", "2000, false", "3986, true"})
    void onlyTheHeadAndTailOfALongPromptAreRead(int at, boolean read) {
        StringBuilder text = new StringBuilder(" lorem".repeat(700));
        text.replace(at, at + 10, " 800 words");
        String prompt = text.toString();
        assertEquals(read ? 800 : 0, PromptCues.requestedWords(prompt));
        assertEquals(read, PromptCues.posesMath(prompt.replace(" 800 words", " x = 5    ")));
    }

    /** A word the tail window's edge cuts is dropped whole, as {@link LexicalFeatures} drops it: "12*3" is not "2*3". */
    @ParameterizedTest
    @CsvSource({"-2, false", "1, true"})
    void aWordTheTailWindowCutsIsDropped(int offset, boolean read) {
        StringBuilder text = new StringBuilder(" lorem".repeat(700));
        int at = text.length() - LexicalFeatures.TAIL_WINDOW_CHARS + offset;
        text.replace(at, at + 6, " 12*3 ");
        assertEquals(read, PromptCues.posesMath(text.toString()));
    }
}
