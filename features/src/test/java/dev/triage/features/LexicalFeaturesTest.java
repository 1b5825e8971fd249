package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LexicalFeaturesTest {

    private static float[] features(String text) {
        return LexicalFeatures.of(new Prompt(text));
    }

    private static float feature(String text, int index) {
        return features(text)[index];
    }

    private static LeadingVerb verb(String text) {
        float[] features = features(text);
        LeadingVerb found = null;
        for (LeadingVerb verb : LeadingVerb.values()) {
            float column = features[LexicalFeatures.FIRST_VERB + verb.ordinal()];
            if (column == 1) {
                assertEquals(null, found, "exactly one verb column is set");
                found = verb;
            } else {
                assertEquals(0, column);
            }
        }
        return found;
    }

    @Test
    void nineteenNamedColumnsInClairvoyantsOrder() {
        assertEquals(19, LexicalFeatures.COUNT);
        assertEquals(List.of("prompt_token_len", "has_code_keyword", "has_length_constraint", "ends_with_question",
                "has_format_keyword", "clause_count", "verb_what", "verb_write", "verb_explain", "verb_summarize",
                "verb_how", "verb_list", "verb_implement", "verb_compare", "verb_describe", "verb_generate",
                "verb_why", "verb_define", "verb_other"), LexicalFeatures.NAMES);
        assertEquals(LexicalFeatures.VERBS.size() + 1, LeadingVerb.values().length);
    }

    @Test
    void promptTokenLengthIsTheSharedApproximation() {
        String text = "Explain how tides work, in detail.";
        assertEquals(PromptTokens.approximate(text), feature(text, LexicalFeatures.PROMPT_TOKEN_LEN));
        assertEquals(9, feature(text, LexicalFeatures.PROMPT_TOKEN_LEN));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Write a Python function that reverses a list",
            "Fix the bug in this snippet", "what does `async def` mean", "call my_function twice",
            "IMPLEMENT a trie", "Why does the COMPILER complain?"})
    void codeKeywordsAreFound(String text) {
        assertEquals(1, feature(text, LexicalFeatures.HAS_CODE_KEYWORD), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Name a classic novel", "Who wrote Hamlet?", "Describe functional fixedness",
            "Programmer jokes, please", "She gave him a codex"})
    void codeKeywordsMatchWholeWordsOnly(String text) {
        assertEquals(0, feature(text, LexicalFeatures.HAS_CODE_KEYWORD), text);
    }

    @Test
    void punctuationEndsAWord() {
        assertEquals(1, feature("the library's hours", LexicalFeatures.HAS_CODE_KEYWORD));
        assertEquals(1, feature("(algorithm)", LexicalFeatures.HAS_CODE_KEYWORD));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Answer briefly: what is DNS?", "Give a detailed account of the war",
            "Explain it step by step", "Explain it step-by-step", "Describe Rome in detail",
            "Summarize in 3 sentences", "Answer in one word", "Write two paragraphs about bees",
            "Give me a few examples", "List 10 ideas for a party", "no more than 50 words please",
            "tl;dr of the plot", "keep it short"})
    void lengthConstraintsAreFound(String text) {
        assertEquals(1, feature(text, LexicalFeatures.HAS_LENGTH_CONSTRAINT), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"What is the capital of France?", "Write a word", "In the detail of the painting",
            "Step into the light", "words matter"})
    void ordinaryTextIsNoLengthConstraint(String text) {
        assertEquals(0, feature(text, LexicalFeatures.HAS_LENGTH_CONSTRAINT), text);
    }

    @Test
    void aCountBeforeAUnitIsAConstraintOnlyWhenAdjacent() {
        assertEquals(1, feature("in 1999 sentences", LexicalFeatures.HAS_LENGTH_CONSTRAINT));
        assertEquals(0, feature("1999 long sentences", LexicalFeatures.HAS_LENGTH_CONSTRAINT));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"Is it raining?|1", "Is it? Tell me.|0", "日本の首都は？|1",
            "ما هي عاصمة مصر؟|1", "no question|0", "?|1"})
    void endsWithQuestion(String text, int expected) {
        assertEquals(expected, feature(text, LexicalFeatures.ENDS_WITH_QUESTION), text);
    }

    @Test
    void trailingWhiteSpaceIsIgnoredWhenLookingForTheQuestionMark() {
        assertEquals(1, feature("Is it raining?  \n\t\u00A0", LexicalFeatures.ENDS_WITH_QUESTION));
        assertEquals(0, feature(" \n ", LexicalFeatures.ENDS_WITH_QUESTION));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Put it in a table", "Return JSON", "as a bulleted list", "Markdown headings please",
            "Give me a CSV"})
    void formatKeywordsAreFound(String text) {
        assertEquals(1, feature(text, LexicalFeatures.HAS_FORMAT_KEYWORD), text);
    }

    @Test
    void formatKeywordsMatchWholeWordsOnly() {
        assertEquals(0, feature("a comfortable stable listing", LexicalFeatures.HAS_FORMAT_KEYWORD));
    }

    @Test
    void clausesAreCountedEachTime() {
        assertEquals(0, feature("Name three rivers.", LexicalFeatures.CLAUSE_COUNT));
        assertEquals(4, feature("Tell me which book, if any, that you liked because it was long.",
                LexicalFeatures.CLAUSE_COUNT));
        assertEquals(0, feature("Thatcher whichever", LexicalFeatures.CLAUSE_COUNT));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "What is a monad?|WHAT", "what's a monad|WHAT", "Write a poem|WRITE", "Explain DNS|EXPLAIN",
            "Summarize this|SUMMARIZE", "Summarise this|SUMMARIZE", "How do magnets work|HOW", "List rivers|LIST",
            "Implement a heap|IMPLEMENT", "Compare X and Y|COMPARE", "Describe Paris|DESCRIBE",
            "Generate names|GENERATE", "Why is the sky blue|WHY", "Define entropy|DEFINE",
            "  \n  WRITE it|WRITE", "\"Explain\" this|EXPLAIN",
            "Translate this to French|OTHER", "Debug my code|OTHER", "Refactor the class|OTHER",
            "Whatever you say|OTHER", "Writes are slow|OTHER", "Listing files|OTHER", "The sky|OTHER",
            "Please write a poem|WRITE", "Could you please explain gravity|EXPLAIN", "Hey, can you list them|LIST",
            "Can dogs eat grapes|OTHER", "please please please please write|WRITE", "please please please please please write|OTHER",
            "Erkläre mir die Relativitätstheorie|OTHER", "写一篇关于春天的文章|OTHER", "¿Qué es el amor?|OTHER"})
    void leadingVerbIsTheFirstWordAfterCourtesy(String text, LeadingVerb expected) {
        assertEquals(expected, verb(text), text);
    }

    @Test
    void emptyPromptHasOnlyTheOtherVerb() {
        float[] expected = new float[LexicalFeatures.COUNT];
        expected[LexicalFeatures.FIRST_VERB + LeadingVerb.OTHER.ordinal()] = 1;
        assertArrayEquals(expected, features(""));
        assertArrayEquals(expected, withoutLength(features(" \n\t ")));
        assertArrayEquals(expected, withoutLength(features("!!! ...")));
    }

    @Test
    void nonEnglishTextKeepsItsLengthAndQuestionMarkButMatchesNoKeyword() {
        String german = "Schreibe eine Funktion, die eine Liste umkehrt, und erkläre sie ausführlich?";
        float[] features = features(german);
        assertEquals(PromptTokens.approximate(german), features[LexicalFeatures.PROMPT_TOKEN_LEN]);
        assertEquals(1, features[LexicalFeatures.ENDS_WITH_QUESTION]);
        assertEquals(0, features[LexicalFeatures.HAS_CODE_KEYWORD]);
        assertEquals(0, features[LexicalFeatures.HAS_FORMAT_KEYWORD]);
        assertEquals(LeadingVerb.OTHER, verb(german));
        // A non-ASCII letter makes a different word: "classé" is not "class".
        assertEquals(0, feature("classé", LexicalFeatures.HAS_CODE_KEYWORD));
        assertEquals(0, feature("Ärray", LexicalFeatures.HAS_CODE_KEYWORD));
    }

    @Test
    void multimodalChatContentIsScoredOnItsTextParts() throws Exception {
        var body = new ObjectMapper().readTree("""
                {"messages":[{"role":"user","content":[
                    {"type":"text","text":"Describe this image"},
                    {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}},
                    {"type":"text","text":"in detail, as a table?"}]}]}""");
        float[] features = LexicalFeatures.of(ChatBody.prompt(body));
        String text = "Describe this image\nin detail, as a table?";
        assertArrayEquals(features(text), features);
        assertEquals(PromptTokens.approximate(text), features[LexicalFeatures.PROMPT_TOKEN_LEN]);
        assertEquals(LeadingVerb.DESCRIBE, verb(text));
        assertEquals(1, features[LexicalFeatures.HAS_LENGTH_CONSTRAINT]);
        assertEquals(1, features[LexicalFeatures.HAS_FORMAT_KEYWORD]);
        assertEquals(1, features[LexicalFeatures.ENDS_WITH_QUESTION]);
    }

    @Test
    void hundredKilobytePromptReadsItsHeadAndTailOnly() {
        String head = "Summarize the following log in two paragraphs.\n";
        String middle = "INFO request served in 12 ms by worker; the python json api class returned a table\n";
        String tail = "\nWhich request was slowest?";
        StringBuilder text = new StringBuilder(head);
        while (text.length() < 100_000) {
            text.append(middle);
        }
        text.append(tail);
        String prompt = text.toString();

        float[] features = features(prompt);
        assertEquals(PromptTokens.approximate(prompt), features[LexicalFeatures.PROMPT_TOKEN_LEN]);
        assertEquals(LeadingVerb.SUMMARIZE, verb(prompt));
        assertEquals(1, features[LexicalFeatures.HAS_LENGTH_CONSTRAINT]);
        assertEquals(1, features[LexicalFeatures.ENDS_WITH_QUESTION]);
        // The middle's keywords count only where they fall inside the head or the tail window.
        assertEquals(1, features[LexicalFeatures.HAS_CODE_KEYWORD]);
        assertEquals(1, features[LexicalFeatures.CLAUSE_COUNT], "only the tail's 'Which'");
        String bigger = prompt.replace(tail, middle.repeat(100) + tail);
        assertArrayEquals(withoutLength(features), withoutLength(features(bigger)),
                "the middle of a long prompt does not change the word features");
    }

    @Test
    void keywordsOnlyInTheMiddleOfALongPromptAreNotSeen() {
        String filler = "lorem ipsum dolor sit amet ".repeat(100);
        String prompt = filler + " Write a python function as a table " + filler;
        float[] features = features(prompt);
        assertEquals(0, features[LexicalFeatures.HAS_CODE_KEYWORD]);
        assertEquals(0, features[LexicalFeatures.HAS_FORMAT_KEYWORD]);
        String shortPrompt = "lorem ipsum Write a python function as a table";
        assertEquals(1, feature(shortPrompt, LexicalFeatures.HAS_CODE_KEYWORD));
    }

    @Test
    void aWordCutByTheTailWindowIsDropped() {
        // The tail window starts inside "xxxxclass": reading only its end would find "class".
        int tailStart = 5000 - LexicalFeatures.TAIL_WINDOW_CHARS;
        String prefix = "a ".repeat(tailStart / 2 - 2) + "xxxx";
        String prompt = prefix + "class" + " b".repeat((5000 - prefix.length() - 5) / 2);
        assertEquals(tailStart, prompt.indexOf("class"));
        assertEquals(0, feature(prompt, LexicalFeatures.HAS_CODE_KEYWORD));
    }

    @Test
    void aWordCutByTheHeadWindowIsCompleted() {
        String prompt = "a ".repeat((LexicalFeatures.HEAD_WINDOW_CHARS - 3) / 2) + "x algorithm" + " b".repeat(2000);
        assertEquals(1, feature(prompt, LexicalFeatures.HAS_CODE_KEYWORD));
    }

    @Test
    void veryLongWordsAreNeverKeywords() {
        assertEquals(0, feature("class".repeat(20), LexicalFeatures.HAS_CODE_KEYWORD));
        assertEquals(1, feature("class".repeat(20) + " class", LexicalFeatures.HAS_CODE_KEYWORD));
    }

    @Test
    void extractOverwritesAndChecksItsBuffer() {
        float[] buffer = new float[LexicalFeatures.COUNT];
        java.util.Arrays.fill(buffer, 7);
        LexicalFeatures.extract("hi", buffer);
        assertArrayEquals(features("hi"), buffer);
        assertThrows(IllegalArgumentException.class, () -> LexicalFeatures.extract("hi", new float[3]));
    }

    private static float[] withoutLength(float[] features) {
        float[] copy = features.clone();
        copy[LexicalFeatures.PROMPT_TOKEN_LEN] = 0;
        return copy;
    }
}
