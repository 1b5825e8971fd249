package dev.triage.model.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AnswerTokensTest {

    @Test
    void countsCl100kTokens() {
        assertEquals(2, AnswerTokens.count("hello world"));
        assertEquals(0, AnswerTokens.count(""));
        // cl100k merges common words and runs of spaces; characters / 4 would say 25 here.
        assertTrue(AnswerTokens.count("The quick brown fox jumps over the lazy dog. ".repeat(2)) < 25);
    }

    @Test
    void specialTokenTextIsOrdinaryText() {
        assertTrue(AnswerTokens.count("before <|endoftext|> after") > 3);
    }
}
