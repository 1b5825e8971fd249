package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.LexicalFeatures;
import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.LengthClass;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ClassifierMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Trains a model on a few dozen prompts, writes it to disk, loads it the way the proxy does, and scores. */
class TinyModelRoundTripTest {

    @BeforeAll
    static void needsXGBoost() {
        XGBoostNative.assumeAvailable();
    }

    @Test
    void aModelTrainedHereRoundTripsThroughOnnxAndRanksTheLongRequestFirst(@TempDir Path dir) throws Exception {
        TrainedClassifier trained = ClassifierTrainer.train(TinyModels.corpus(), TinyModels.SETTINGS);
        Path model = dir.resolve("tiny.onnx");
        trained.writeTo(model);
        assertTrue(Files.isRegularFile(dir.resolve("tiny.json")));

        try (ClassifierEstimator estimator = ClassifierEstimator.load(model)) {
            Estimate shortOne = estimator.estimate(new Prompt("What is the Nile? Answer in one sentence."));
            Estimate longOne = estimator.estimate(new Prompt("Write a detailed multi-part essay about the Nile, covering "
                    + "its history, causes, consequences and future, with a heading for each part."));
            assertTrue(longOne.longProbability() > shortOne.longProbability(), longOne + " vs " + shortOne);
            assertTrue(longOne.expectedTokens() > shortOne.expectedTokens(), longOne + " vs " + shortOne);
            assertEquals(LengthClass.LONG, longOne.lengthClass());
            assertEquals(LengthClass.SHORT, shortOne.lengthClass());

            ClassifierMetadata metadata = estimator.metadata();
            assertEquals(LexicalFeatures.SCHEMA_VERSION, metadata.schemaVersion());
            assertEquals(ClassifierMetadata.ClassBounds.current(), metadata.classBounds());
            assertEquals(List.of(36, 36, 36), metadata.training().answersPerClass(), "12 prompts per class, 3 answers each");
            assertEquals(1, metadata.data().size());
            assertEquals("alpaca_eval", metadata.data().get(0).source());
            List<Double> means = metadata.meanAnswerTokens();
            assertTrue(means.get(0) < 200 && means.get(1) >= 200 && means.get(1) < 800 && means.get(2) >= 800, means.toString());
            // Expected tokens are a probability-weighted mean of the class means, so they stay between them.
            Estimate medium = estimator.estimate(new Prompt("Explain how rivers works."));
            assertTrue(medium.expectedTokens() >= means.get(0) && medium.expectedTokens() <= means.get(2), medium.toString());
        }
    }

    @Test
    void estimatingABatchEqualsEstimatingEachPrompt() {
        TrainedClassifier trained = ClassifierTrainer.train(TinyModels.corpus(), new TrainingSettings(10, 3, 0.3, 42));
        try (ClassifierEstimator estimator = trained.estimator("in memory")) {
            List<Prompt> prompts = List.of(new Prompt("What is jazz?"), new Prompt(""), new Prompt("Write a detailed essay"));
            List<Estimate> batch = estimator.estimateAll(prompts);
            for (int i = 0; i < prompts.size(); i++) {
                assertEquals(estimator.estimate(prompts.get(i)), batch.get(i));
            }
            assertEquals(List.of(), estimator.estimateAll(List.of()));
        }
    }
}
