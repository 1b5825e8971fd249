package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.SwappableEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.config.EstimatorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatEstimatorsTest {

    @Test
    void theRankerLoadsItsShippedModelAndLoadsAgainForAReload() {
        EstimatorConfig config = new EstimatorConfig(RankerEstimator.NAME, Optional.empty(), false, false);
        assertEquals("classpath:/models/ranker.onnx", ChatEstimators.modelLocation(config));
        try (JobEstimator<Prompt> ranker = ChatEstimators.load(config);
                JobEstimator<Prompt> reloaded = ChatEstimators.reloader(config).get()) {
            assertInstanceOf(RankerEstimator.class, ranker);
            assertTrue(ranker.expensive());
            assertInstanceOf(RankerEstimator.class, reloaded);
            assertTrue(ranker.estimate(new Prompt("Write a long essay on rivers.")).expectedTokens() > 0);
        }
    }

    @Test
    void aRankerModelThatCannotLoadStopsStartUpUnlessTheBaselineIsAskedFor(@TempDir Path dir) {
        Path missing = dir.resolve("ranker.onnx");
        ModelLoadException e = assertThrows(ModelLoadException.class,
                () -> ChatEstimators.load(new EstimatorConfig(RankerEstimator.NAME, Optional.of(missing), false, false)));
        assertEquals("ranker model " + missing + ": no such file: " + missing, e.getMessage());
        try (JobEstimator<Prompt> fallback = ChatEstimators.load(
                new EstimatorConfig(RankerEstimator.NAME, Optional.of(missing), true, false))) {
            assertInstanceOf(BaselineEstimator.class, fallback);
        }
    }

    @Test
    void aRankerReloadedFromItsFileSwapsAndACorruptFileKeepsTheServingOne(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("ranker.onnx");
        copyResource(RankerEstimator.DEFAULT_MODEL_RESOURCE, model);
        copyResource("/models/ranker.json", ModelFiles.metadataPath(model));
        EstimatorConfig config = new EstimatorConfig(RankerEstimator.NAME, Optional.of(model), false, false);
        Prompt essay = new Prompt("Write a detailed, multi-part essay on the history of rivers.");
        try (SwappableEstimator<Prompt> serving = new SwappableEstimator<>(ChatEstimators.load(config));
                ModelReloader reloader = new ModelReloader(serving, ChatEstimators.reloader(config),
                        ChatEstimators.modelLocation(config))) {
            double before = serving.estimate(essay).expectedTokens();
            assertTrue(reloader.reload().get(60, TimeUnit.SECONDS).reloaded());
            assertEquals(before, serving.estimate(essay).expectedTokens(), 1e-9, "the same file estimates the same");

            Files.write(model, new byte[] {1, 2, 3});
            ModelReloader.Result corrupt = reloader.reload().get(60, TimeUnit.SECONDS);
            assertFalse(corrupt.reloaded());
            assertTrue(corrupt.message().contains(model.toString()), corrupt.message());
            assertEquals(before, serving.estimate(essay).expectedTokens(), 1e-9, "the serving model stays");
        }
    }

    private static void copyResource(String resource, Path to) throws IOException {
        try (InputStream in = RankerEstimator.class.getResourceAsStream(resource)) {
            Files.copy(in, to);
        }
    }

    @Test
    void theClassifierKeepsItsShippedModel() {
        EstimatorConfig config = new EstimatorConfig("classifier", Optional.empty(), false, false);
        assertEquals("classpath:/models/classifier.onnx", ChatEstimators.modelLocation(config));
        try (JobEstimator<Prompt> classifier = ChatEstimators.load(config)) {
            assertEquals("classifier", classifier.name());
        }
    }
}
