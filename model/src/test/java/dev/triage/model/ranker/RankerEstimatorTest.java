package dev.triage.model.ranker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.ConcurrentEstimates;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.training.TinyModels;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RankerEstimatorTest {

    private static final String BRIEF = "What is the capital of France? Answer in one word.";
    private static final String ESSAY = "Write a detailed, multi-part essay on the causes, course and consequences of the "
            + "First World War, with a heading for each part and a bibliography.";

    private static RankerEstimator shipped;

    @BeforeAll
    static void loadShipped() {
        shipped = RankerEstimator.loadDefault();
    }

    @AfterAll
    static void close() {
        shipped.close();
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = RankerEstimatorTest.class.getResourceAsStream("/models/" + name)) {
            return in.readAllBytes();
        }
    }

    /** The shipped head in {@code dir} with {@code onnx} and {@code metadata} as its files. */
    private static Path modelWith(Path dir, byte[] onnx, String metadata) throws IOException {
        Path model = dir.resolve("ranker.onnx");
        Files.write(model, onnx);
        Files.writeString(dir.resolve("ranker.json"), metadata, StandardCharsets.UTF_8);
        return model;
    }

    private static String shippedMetadata() throws IOException {
        return new String(resource("ranker.json"), StandardCharsets.UTF_8);
    }

    @Test
    void theShippedModelRanksAnEssayAboveAOneWordAnswer() {
        assertEquals(RankerEstimator.NAME, shipped.name());
        assertTrue(shipped.expensive());
        RankerMetadata metadata = shipped.metadata();
        assertEquals(EncoderSpec.MINILM.displayName(), metadata.encoder());
        assertEquals("pairwise", metadata.objective());
        assertTrue(metadata.data().stream().allMatch(d -> !d.licence().isBlank() && !d.provenance().isBlank()));
        assertTrue(metadata.evaluation().stream().anyMatch(f -> f.split().equals("test") && f.source().equals("all")));
        Estimate brief = shipped.estimate(new Prompt(BRIEF));
        Estimate essay = shipped.estimate(new Prompt(ESSAY));
        assertTrue(essay.expectedTokens() > 2 * brief.expectedTokens(), brief + " vs " + essay);
        assertTrue(Double.isNaN(brief.longProbability()));
    }

    /** The head reads the request's shape, not only the text: the same words later in a long conversation score otherwise. */
    @Test
    void theConversationsShapeReachesTheHead() {
        String text = "Summarize the discussion above.";
        double alone = shipped.estimate(new Prompt(text)).expectedTokens();
        double inConversation = shipped.estimate(new Prompt(text, 4, 800, 40_000)).expectedTokens();
        assertNotEquals(alone, inConversation);
    }

    /** A client's system prompt, which no training prompt has, leaves the estimate as it was. */
    @Test
    void aSystemPromptLeavesTheEstimateAsItWas() {
        for (String text : List.of(BRIEF, ESSAY)) {
            assertEquals(shipped.estimate(new Prompt(text)), shipped.estimate(new Prompt(text, 1, 400, text.length() + 400)), text);
        }
    }

    /** Estimates are pure: a prompt's estimate does not depend on the prompts batched with it. */
    @Test
    void aBatchEstimatesEachPromptAsAlone() {
        List<Prompt> prompts = List.of(new Prompt(BRIEF), new Prompt(ESSAY), new Prompt(""), new Prompt("描述这张图片"),
                new Prompt("x".repeat(100_000)));
        List<Estimate> batch = shipped.estimateAll(prompts);
        assertEquals(prompts.stream().map(shipped::estimate).toList(), batch);
        assertEquals(batch.subList(1, 3), shipped.estimateAll(prompts.subList(1, 3)));
        assertEquals(List.of(), shipped.estimateAll(List.of()));
    }

    @Test
    void estimatesAreThreadSafe() throws Exception {
        ConcurrentEstimates.assertSameAsSequential(shipped, 24, 30, 4);
    }

    @Test
    void aModelFileLoadsWithItsMetadataBesideIt(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("tiny.onnx");
        TinyModels.writeRanker(TinyModels.corpus(), model);
        try (RankerEstimator tiny = RankerEstimator.load(model)) {
            assertEquals(64, tiny.metadata().maxTokens());
            assertTrue(tiny.estimate(new Prompt(ESSAY)).expectedTokens() > tiny.estimate(new Prompt(BRIEF)).expectedTokens());
        }
    }

    @Test
    void aMissingModelFileNamesThePath(@TempDir Path dir) {
        Path missing = dir.resolve("nowhere.onnx");
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(missing));
        assertEquals(missing.toString(), e.location());
        assertEquals("ranker model " + missing + ": no such file: " + missing, e.getMessage());
    }

    @Test
    void aMissingMetadataFileIsNamed(@TempDir Path dir) throws IOException {
        Path model = dir.resolve("ranker.onnx");
        Files.write(model, resource("ranker.onnx"));
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(model));
        assertEquals("ranker model " + model + ": no such file: " + dir.resolve("ranker.json"), e.getMessage());
    }

    @Test
    void aCorruptModelFileIsAClearError(@TempDir Path dir) throws IOException {
        byte[] garbage = new byte[4096];
        new Random(5).nextBytes(garbage);
        Path model = modelWith(dir, garbage, shippedMetadata());
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(model));
        assertTrue(e.getMessage().startsWith("ranker model " + model + ": not a usable ONNX ranking head: "), e.getMessage());
    }

    @Test
    void anOnnxModelThatIsNotARankingHeadIsRefused(@TempDir Path dir) throws IOException {
        byte[] classifier;
        try (InputStream in = ClassifierEstimator.class.getResourceAsStream(ClassifierEstimator.DEFAULT_MODEL_RESOURCE)) {
            classifier = in.readAllBytes();
        }
        Path model = modelWith(dir, classifier, shippedMetadata());
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(model));
        assertTrue(e.getMessage().contains("not a usable ONNX ranking head: inputs [features] (expected: [embedding, features])"),
                e.getMessage());
    }

    @Test
    void corruptMetadataIsAClearError(@TempDir Path dir) throws IOException {
        Path model = modelWith(dir, resource("ranker.onnx"), "{\"encoder\": ");
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(model));
        assertTrue(e.getMessage().startsWith("ranker model " + model + ": metadata is not valid JSON"), e.getMessage());
    }

    @Test
    void aHeadForAnotherEncoderOrABrokenCalibrationIsRefused(@TempDir Path dir) throws IOException {
        String metadata = shippedMetadata();
        String minilm = EncoderSpec.MINILM.displayName();
        Path otherEncoder = modelWith(dir, resource("ranker.onnx"), metadata.replace(minilm, "bert-base-uncased"));
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(otherEncoder));
        assertEquals("ranker model " + otherEncoder + ": trained for encoder bert-base-uncased (expected one of: " + minilm
                + ", " + EncoderSpec.BGE_SMALL.displayName() + ", " + EncoderSpec.E5_SMALL.displayName() + ")", e.getMessage());

        // A known encoder's name on a head that pooled otherwise: bge reads the [CLS] state, MiniLM's head a mean.
        Path otherPooling = modelWith(dir, resource("ranker.onnx"), metadata.replace(minilm, EncoderSpec.BGE_SMALL.displayName()));
        e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(otherPooling));
        assertEquals("ranker model " + otherPooling + ": trained for pooling mean over tokens, L2-normalized (expected with "
                + "bge-small: the [CLS] token's state, L2-normalized)", e.getMessage());

        Path noCalibration = modelWith(dir, resource("ranker.onnx"), metadata.replace("\"calibration\"", "\"calibrationGone\""));
        e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(noCalibration));
        assertEquals("ranker model " + noCalibration + ": metadata has no calibration (expected: score → tokens knots)",
                e.getMessage());

        Path decreasing = modelWith(dir, resource("ranker.onnx"),
                metadata.replaceFirst("\"tokens\" : \\[ [0-9.E]+", "\"tokens\" : [ 1.0E9"));
        e = assertThrows(ModelLoadException.class, () -> RankerEstimator.load(decreasing));
        assertTrue(e.getMessage().contains("metadata is not valid JSON") && e.getMessage().contains("calibration: knot 0"),
                e.getMessage());
    }
}
