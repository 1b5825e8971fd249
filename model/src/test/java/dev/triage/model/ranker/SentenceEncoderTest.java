package dev.triage.model.ranker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SentenceEncoderTest {

    private static final int MAX_TOKENS = 32;

    private static SentenceEncoder encoder;

    @BeforeAll
    static void open() throws Exception {
        encoder = SentenceEncoder.open(EncoderSpec.DEFAULT, MAX_TOKENS);
    }

    @AfterAll
    static void close() {
        encoder.close();
    }

    @Test
    void embeddingsAreUnitVectorsOfTheModelsWidth() {
        float[][] embeddings = encoder.embed(List.of("What is the capital of France?", "", "描述这张图片"));
        assertEquals(3, embeddings.length);
        for (float[] embedding : embeddings) {
            assertEquals(EncoderSpec.DEFAULT.dimensions(), embedding.length);
            assertEquals(1.0, norm(embedding), 1e-5);
        }
    }

    @Test
    void meaningDecidesWhatIsClose() {
        float[][] e = encoder.embed(List.of("How do I bake a loaf of bread?", "Give me a recipe for homemade bread.",
                "Explain quantum entanglement to a physicist."));
        assertTrue(dot(e[0], e[1]) > dot(e[0], e[2]) + 0.2, dot(e[0], e[1]) + " vs " + dot(e[0], e[2]));
    }

    /**
     * The int8 model scales its activations per call: texts must not share one, or each would
     * change the other's embedding.
     */
    @Test
    void eachTextIsEncodedAsIfAlone() {
        String brief = "Name a colour.";
        String longer = "Write a detailed, well-structured essay about the history of the printing press in Europe.";
        float[][] together = encoder.embed(List.of(brief, longer));
        assertArrayEquals(encoder.embed(brief), together[0]);
        assertArrayEquals(encoder.embed(longer), together[1]);
    }

    /** A long text keeps its end: an instruction after pasted material changes the embedding, a change in the middle does not. */
    @Test
    void aLongTextIsEncodedFromItsHeadAndTail() {
        String pasted = "the quarterly report lists revenue by region and month. ".repeat(300);
        float[] summarize = encoder.embed("Read this:\n" + pasted + "Summarize it in one sentence.");
        float[] translate = encoder.embed("Read this:\n" + pasted + "Translate it into French, every line.");
        float[] middleChanged = encoder.embed("Read this:\n" + pasted.substring(0, pasted.length() / 2)
                + "different middle " + pasted.substring(pasted.length() / 2) + "Summarize it in one sentence.");
        assertFalse(java.util.Arrays.equals(summarize, translate));
        assertArrayEquals(summarize, middleChanged);
    }

    @Test
    void textsAreCutAtTheTruncationLength() {
        assertEquals(4, encoder.tokenCount("hello world"));
        assertEquals(MAX_TOKENS, encoder.tokenCount("word ".repeat(1_000)));
        String huge = "word ".repeat(200_000);
        assertEquals(MAX_TOKENS, encoder.tokenCount(huge));
        assertEquals(1.0, norm(encoder.embed(List.of(huge))[0]), 1e-5);
        // The cut lands inside a surrogate pair here: the half pair must not reach the tokenizer.
        String emoji = "a".repeat(MAX_TOKENS * 101 - 1) + "😀";
        assertEquals(1.0, norm(encoder.embed(List.of(emoji))[0]), 1e-5);
    }

    @Test
    void anEmptyBatchCostsNothing() {
        assertEquals(0, encoder.embed(List.of()).length);
    }

    @Test
    void badSettingsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SentenceEncoder.open(EncoderSpec.DEFAULT, 513));
        assertEquals("maxTokens: 513 (expected: 2 to 512)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SentenceEncoder.open(EncoderSpec.DEFAULT, 64, 0));
        assertEquals("threads: 0 (expected: >= 1)", e.getMessage());
    }

    private static double norm(float[] v) {
        return Math.sqrt(dot(v, v));
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }
}
