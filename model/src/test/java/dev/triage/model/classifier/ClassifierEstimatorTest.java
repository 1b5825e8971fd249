package dev.triage.model.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.LexicalFeatures;
import dev.triage.features.Prompt;
import dev.triage.model.ConcurrentEstimates;
import dev.triage.model.Estimate;
import dev.triage.model.LengthClass;
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

class ClassifierEstimatorTest {

    private static ClassifierEstimator shipped;

    @BeforeAll
    static void loadShipped() {
        shipped = ClassifierEstimator.loadDefault();
    }

    @AfterAll
    static void close() {
        shipped.close();
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = ClassifierEstimatorTest.class.getResourceAsStream("/models/" + name)) {
            return in.readAllBytes();
        }
    }

    /** A copy of the shipped model in {@code dir} whose metadata JSON is {@code metadata}. */
    private static Path modelWith(Path dir, byte[] onnx, String metadata) throws IOException {
        Path model = dir.resolve("model.onnx");
        Files.write(model, onnx);
        Files.writeString(dir.resolve("model.json"), metadata, StandardCharsets.UTF_8);
        return model;
    }

    @Test
    void theShippedModelMatchesThisBuildsFeaturesAndScores() {
        ClassifierMetadata metadata = shipped.metadata();
        assertEquals(LexicalFeatures.SCHEMA_VERSION, metadata.schemaVersion());
        assertEquals(ClassifierEstimator.NAME, shipped.name());
        assertTrue(metadata.data().stream().allMatch(d -> !d.licence().isBlank() && !d.provenance().isBlank()));
        assertTrue(metadata.evaluation().stream().anyMatch(f -> f.split().equals("test") && f.source().equals("all")));
    }

    /**
     * The shipped model's own answers for fixed prompts, as this build's features and ONNX Runtime
     * gave them when the model was shipped: each prompt's features reach the trees (zeroed or
     * misordered features, or another estimator, give other numbers). Retraining the shipped model
     * changes them; {@code scripts/train} rebuilds this model byte for byte.
     */
    @Test
    void theShippedModelGivesItsKnownAnswersForFixedPrompts() {
        assertKnownAnswer("Translate 'good morning' into French.", 296.779791, LengthClass.SHORT, 0.066596);
        assertKnownAnswer("Summarize the history of jazz in one sentence.", 360.729422, LengthClass.SHORT, 0.111412);
        assertKnownAnswer("What is 2 + 2?", 560.397410, LengthClass.LONG, 0.375749);
        assertKnownAnswer("Write a Python function that parses a CSV file and returns a list of dictionaries, with error "
                + "handling and unit tests.", 711.445378, LengthClass.LONG, 0.515037);
        assertKnownAnswer("Write a detailed essay on the causes of the First World War.", 765.094230, LengthClass.LONG, 0.578236);
        assertKnownAnswer("Write a detailed, multi-part essay on the history of jazz, covering its origins, its major eras, "
                + "its key musicians, and its influence on other genres.", 804.399693, LengthClass.LONG, 0.628891);
    }

    private static void assertKnownAnswer(String prompt, double expectedTokens, LengthClass lengthClass, double longProbability) {
        Estimate estimate = shipped.estimate(new Prompt(prompt));
        assertEquals(expectedTokens, estimate.expectedTokens(), 0.01, prompt);
        assertEquals(lengthClass, estimate.lengthClass(), prompt);
        assertEquals(longProbability, estimate.longProbability(), 1e-5, prompt);
    }

    @Test
    void emptyMultimodalAndHugePromptsAreScored() {
        for (String text : List.of("", "描述这张图片", "x".repeat(100_000))) {
            Estimate estimate = shipped.estimate(new Prompt(text));
            assertTrue(Double.isFinite(estimate.expectedTokens()) && estimate.longProbability() >= 0, estimate.toString());
        }
    }

    @Test
    void estimatesAreThreadSafe() throws Exception {
        ConcurrentEstimates.assertSameAsSequential(shipped, 200, 60, 8);
    }

    @Test
    void aMissingModelFileNamesThePath(@TempDir Path dir) {
        Path missing = dir.resolve("nowhere.onnx");
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(missing));
        assertEquals(missing.toString(), e.location());
        assertEquals("classifier model " + missing + ": no such file: " + missing, e.getMessage());
    }

    @Test
    void aMissingMetadataFileIsNamed(@TempDir Path dir) throws IOException {
        Path model = dir.resolve("model.onnx");
        Files.write(model, resource("classifier.onnx"));
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(model));
        assertTrue(e.getMessage().endsWith("no such file: " + dir.resolve("model.json")), e.getMessage());
    }

    @Test
    void aCorruptModelFileIsAClearError(@TempDir Path dir) throws IOException {
        byte[] garbage = new byte[4096];
        new Random(5).nextBytes(garbage);
        Path model = modelWith(dir, garbage, new String(resource("classifier.json"), StandardCharsets.UTF_8));
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(model));
        assertTrue(e.getMessage().startsWith("classifier model " + model + ": not a usable ONNX length classifier: "),
                e.getMessage());
    }

    @Test
    void corruptMetadataIsAClearError(@TempDir Path dir) throws IOException {
        Path model = modelWith(dir, resource("classifier.onnx"), "{\"schemaVersion\": ");
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(model));
        assertTrue(e.getMessage().contains("metadata is not valid JSON"), e.getMessage());

        Path nothing = modelWith(dir, resource("classifier.onnx"), "null");
        e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(nothing));
        assertEquals("classifier model " + nothing + ": metadata is null (expected: a JSON object)", e.getMessage());
    }

    @Test
    void aModelForOtherFeaturesOrClassesIsRefused(@TempDir Path dir) throws IOException {
        String metadata = new String(resource("classifier.json"), StandardCharsets.UTF_8);
        Path otherSchema = modelWith(dir, resource("classifier.onnx"),
                metadata.replace(LexicalFeatures.SCHEMA_VERSION, "clairvoyant-lexical-19/0"));
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(otherSchema));
        assertEquals("classifier model " + otherSchema + ": trained for feature schema clairvoyant-lexical-19/0 (expected: "
                + LexicalFeatures.SCHEMA_VERSION + ")", e.getMessage());

        Path otherBounds = modelWith(dir, resource("classifier.onnx"), metadata.replace("\"longFrom\" : 800", "\"longFrom\" : 1000"));
        e = assertThrows(ModelLoadException.class, () -> ClassifierEstimator.load(otherBounds));
        assertTrue(e.getMessage().contains("trained for class bounds"), e.getMessage());
    }

    @Test
    void theMetadataFileSitsBesideTheModel() {
        assertEquals(Path.of("/m/classifier.json"), ModelFiles.metadataPath(Path.of("/m/classifier.onnx")));
        assertEquals(Path.of("model.bin.json"), ModelFiles.metadataPath(Path.of("model.bin")));
    }
}
