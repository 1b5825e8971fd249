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
import dev.triage.proxy.testing.ShippedRankerFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatEstimatorsTest {

    @Test
    void theRankerLoadsItsShippedModelAndLoadsAgainForAReload() {
        EstimatorConfig config = new EstimatorConfig(RankerEstimator.NAME, Optional.empty(), "classifier", false);
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
    void aMissingModelFileIsFoundBeforeLoadingAndTheFallbackIsTheShippedFastModel(@TempDir Path dir) throws IOException {
        Path model = dir.resolve("ranker.onnx");
        EstimatorConfig config = new EstimatorConfig(RankerEstimator.NAME, Optional.of(model), "classifier", false);
        assertTrue(config.loadsInBackground());
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ChatEstimators.requireModelFiles(config));
        assertEquals("ranker model " + model + ": no such file: " + model, e.getMessage());
        Files.write(model, new byte[] {1});
        Path metadata = ModelFiles.metadataPath(model);
        e = assertThrows(ModelLoadException.class, () -> ChatEstimators.requireModelFiles(config));
        assertEquals("ranker model " + model + ": no such file: " + metadata, e.getMessage());
        Files.write(metadata, new byte[] {1});
        ChatEstimators.requireModelFiles(config);

        try (JobEstimator<Prompt> fallback = ChatEstimators.fallback(config)) {
            assertEquals("classifier", fallback.name());
        }
        EstimatorConfig toBaseline = new EstimatorConfig(RankerEstimator.NAME, Optional.empty(), "baseline", false);
        try (JobEstimator<Prompt> fallback = ChatEstimators.fallback(toBaseline)) {
            assertInstanceOf(BaselineEstimator.class, fallback);
        }
        EstimatorConfig toLexical = new EstimatorConfig(RankerEstimator.NAME, Optional.empty(), "lexical", false);
        try (JobEstimator<Prompt> fallback = ChatEstimators.fallback(toLexical)) {
            assertEquals("lexical", fallback.name());
            assertFalse(fallback.expensive(), "a fallback runs on the event loop");
        }
        assertFalse(new EstimatorConfig("classifier", Optional.of(model), "lexical", false).loadsInBackground(),
                "a fast estimator loads before Triage serves");
        assertFalse(new EstimatorConfig("lexical", Optional.empty(), "classifier", false).loadsInBackground());
        assertFalse(new EstimatorConfig("baseline", Optional.empty(), "classifier", false).loadsInBackground());
    }

    @Test
    void aRankerReloadedFromItsFileSwapsAndACorruptFileKeepsTheServingOne(@TempDir Path dir) throws Exception {
        Path model = ShippedRankerFiles.copyInto(dir);
        EstimatorConfig config = new EstimatorConfig(RankerEstimator.NAME, Optional.of(model), "classifier", false);
        Prompt essay = new Prompt("Write a detailed, multi-part essay on the history of rivers.");
        try (SwappableEstimator<Prompt> serving = new SwappableEstimator<>(ChatEstimators.load(config));
                ModelReloader reloader = new ModelReloader(serving::swap, ChatEstimators.reloader(config),
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

    /** An Error from a load (a native library missing, a model too large) fails that reload and says why; before, the answer never came. */
    @Test
    void aModelWhoseNativeLibraryCannotLoadIsAFailedReloadThatSaysWhy() throws Exception {
        try (ModelReloader reloader = new ModelReloader(installed -> { throw new AssertionError("nothing to install"); }, () -> {
            throw new UnsatisfiedLinkError("no onnxruntime in java.library.path");
        }, "test")) {
            ModelReloader.Result result = reloader.reload().get(10, TimeUnit.SECONDS);
            assertFalse(result.reloaded());
            assertTrue(result.message().contains("no onnxruntime"), result.message());
        }
    }

    @Test
    void theClassifierKeepsItsShippedModel() {
        EstimatorConfig config = new EstimatorConfig("classifier", Optional.empty(), "classifier", false);
        assertEquals("classpath:/models/classifier.onnx", ChatEstimators.modelLocation(config));
        try (JobEstimator<Prompt> classifier = ChatEstimators.load(config)) {
            assertEquals("classifier", classifier.name());
        }
    }
}
