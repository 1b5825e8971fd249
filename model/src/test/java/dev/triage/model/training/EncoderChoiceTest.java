package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A head is trained on one encoder's embeddings, says which, and is served and scored with that encoder alone. */
class EncoderChoiceTest {

    @Test
    void aHeadTrainedForOneEncoderIsServedWithItAndRefusesAnothersEmbeddings(@TempDir Path cache) throws Exception {
        List<LabeledPrompt> prompts = TinyModels.corpus();
        int maxTokens = TinyModels.RANKER_SETTINGS.maxTokens();
        EncoderGraph bgeGraph = EncoderGraph.of(EncoderSpec.BGE_SMALL);
        EncoderGraph minilmGraph = EncoderGraph.of(EncoderSpec.MINILM);
        PromptEmbeddings bge = PromptEmbeddings.of(prompts, bgeGraph, maxTokens, cache);
        PromptEmbeddings minilm = PromptEmbeddings.of(prompts, minilmGraph, maxTokens, cache);
        assertNotEquals(EmbeddingCache.fileName(bgeGraph, maxTokens), EmbeddingCache.fileName(minilmGraph, maxTokens));
        assertTrue(Files.exists(cache.resolve(EmbeddingCache.fileName(bgeGraph, maxTokens))));
        assertTrue(Files.exists(cache.resolve(EmbeddingCache.fileName(minilmGraph, maxTokens))));

        TrainedRanker trained = RankerTrainer.train(prompts, bge.of(prompts), prompts, bge.of(prompts),
                TinyModels.RANKER_SETTINGS.withEncoder(EncoderSpec.BGE_SMALL));
        assertEquals(EncoderSpec.BGE_SMALL.displayName(), trained.metadata().encoder());
        assertEquals(EncoderSpec.Pooling.CLS.description, trained.metadata().pooling());

        try (RankerModel model = trained.model("bge head");
                RankerEstimator served = trained.estimator("bge head")) {
            assertEquals(EncoderSpec.BGE_SMALL, served.metadata().encoderSpec());
            // Served, the head reads the encoder it was trained on: the same estimates as from the cached bge embeddings.
            List<Double> cached = bge.estimates(model, prompts).stream().map(e -> e.expectedTokens()).toList();
            List<Double> live = served.estimateAll(prompts.stream().map(LabeledPrompt::request).toList()).stream()
                    .map(e -> e.expectedTokens()).toList();
            assertEquals(cached, live);

            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> minilm.estimates(model, prompts));
            assertEquals("a head trained on bge-small embeddings cannot score minilm embeddings", e.getMessage());
        }
    }
}
