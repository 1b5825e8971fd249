package dev.triage.proxy.estimators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.config.EstimatorConfig;
import java.nio.file.Path;
import java.util.Optional;
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
    void theClassifierKeepsItsShippedModel() {
        EstimatorConfig config = new EstimatorConfig("classifier", Optional.empty(), false, false);
        assertEquals("classpath:/models/classifier.onnx", ChatEstimators.modelLocation(config));
        try (JobEstimator<Prompt> classifier = ChatEstimators.load(config)) {
            assertEquals("classifier", classifier.name());
        }
    }
}
