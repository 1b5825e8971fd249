package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.ndarray.NDManager;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.SentenceEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EncoderTunerTest {

    private static final List<String> TEXTS = List.of("What is 2 + 2?", "Write a detailed essay about the history of jazz.",
            "Translate 'good morning' into French, German and Italian, and explain when each is used.",
            "Summarize the following text in one line: the committee met on Tuesday and agreed to postpone the vote.");

    private static EncoderGraph shipped;
    private static Int8BertWeights weights;

    @BeforeAll
    static void readShippedGraph() throws Exception {
        shipped = EncoderGraph.of(EncoderSpec.MINILM);
        weights = Int8BertWeights.of(shipped.onnx());
    }

    @Test
    void untunedLayersQuantizedBackGiveTheShippedEmbeddings() throws Exception {
        List<List<Int8BertWeights.Tensor>> layers = new ArrayList<>();
        for (int layer = 0; layer < weights.layers(); layer++) {
            layers.add(weights.layer(layer));
        }
        EncoderGraph rewritten = new EncoderGraph(EncoderSpec.MINILM, weights.withLayers(0, layers), true);
        assertEquals(6, weights.layers());
        try (SentenceEncoder original = SentenceEncoder.open(shipped, 64, 1);
                SentenceEncoder requantized = SentenceEncoder.open(rewritten, 64, 1)) {
            for (String text : TEXTS) {
                assertArrayEquals(original.embed(text), requantized.embed(text), 1e-6f, text);
            }
        }
    }

    /** The build's libtorch is the Linux x86-64 one; elsewhere the tuning cannot run. */
    private static void assumeLibTorch() {
        assumeTrue(System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64"),
                "the build's libtorch is for Linux on x86-64");
    }

    @Test
    void theDifferentiableEncoderComputesWhatTheInt8GraphServes() throws Exception {
        assumeLibTorch();
        try (SentenceEncoder served = SentenceEncoder.open(shipped, 64, 1);
                TunableBert bert = new TunableBert(EncoderSpec.MINILM, weights);
                NDManager arrays = bert.manager().newSubManager()) {
            float[] embeddings = bert.embed(arrays, TEXTS.stream().map(served::ids).toList()).toFloatArray();
            for (int t = 0; t < TEXTS.size(); t++) {
                float[] expected = served.embed(TEXTS.get(t));
                double cosine = 0;
                for (int d = 0; d < expected.length; d++) {
                    cosine += expected[d] * embeddings[t * expected.length + d];
                }
                // Not equal: the int8 graph also rounds its activations to 8 bits, one scale per call.
                assertTrue(cosine > 0.97, TEXTS.get(t) + ": cosine " + cosine);
            }
        }
    }

    @Test
    void aTunedEncoderServesBesideItsHeadAndOnlyThere(@TempDir Path directory) throws Exception {
        assumeLibTorch();
        List<LabeledPrompt> prompts = TinyModels.invertedCorpus();
        RankerSettings settings = TinyModels.RANKER_SETTINGS;
        EncoderTuner.Result tuned = EncoderTuner.tune(shipped, prompts, prompts, settings, new EncoderTuning(40, 4, 1e-4, 1e-2),
                "ranker-encoder.onnx");
        List<Double> accuracy = tuned.metadata().validationAccuracy();
        assertTrue(accuracy.get(1) > accuracy.get(0) && accuracy.get(1) >= 0.9, "accuracy before and after: " + accuracy);
        assertNotEquals(shipped.sha256(), tuned.graph().sha256());

        float[][] embeddings;
        try (SentenceEncoder encoder = SentenceEncoder.open(tuned.graph(), settings.maxTokens(), 1)) {
            embeddings = encoder.embed(prompts.stream().map(LabeledPrompt::prompt).toList());
        }
        TrainedRanker trained = RankerTrainer.train(prompts, embeddings, prompts, embeddings, settings)
                .withTunedEncoder(tuned.graph(), tuned.metadata());
        Path head = directory.resolve("ranker.onnx");
        trained.writeTo(head);
        assertTrue(Files.exists(directory.resolve("ranker-encoder.onnx")));
        List<Prompt> requests = prompts.stream().map(LabeledPrompt::request).toList();
        List<Estimate> fromMemory;
        try (RankerEstimator inMemory = trained.estimator("trained")) {
            fromMemory = inMemory.estimateAll(requests);
        }
        try (RankerEstimator loaded = RankerEstimator.load(head)) {
            assertEquals(fromMemory, loaded.estimateAll(requests));
        }

        Files.write(directory.resolve("ranker-encoder.onnx"), shipped.onnx());
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(head));
        assertTrue(e.getMessage().contains("SHA-256"), e.getMessage());
    }
}
