package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.lexical.LexicalEstimator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LexicalTrainerTest {

    private static final LexicalSettings TINY = new LexicalSettings(LexicalSettings.Objective.REGRESSION,
            new TrainingSettings(30, 3, 0.3, 42));

    @BeforeAll
    static void needsXGBoost() {
        XGBoostNative.assumeAvailable();
    }

    @Test
    void bothObjectivesOrderTheObviousKinds() {
        List<LabeledPrompt> corpus = TinyModels.corpus();
        for (LexicalSettings.Objective objective : LexicalSettings.Objective.values()) {
            TrainedLexical trained = LexicalTrainer.train(corpus, corpus, new LexicalSettings(objective, TINY.boosting()));
            try (LexicalEstimator estimator = trained.estimator("tiny")) {
                float[] scores = estimator.scores(corpus.stream().map(LabeledPrompt::request).toList());
                double highestBrief = -Double.MAX_VALUE;
                double lowestEssay = Double.MAX_VALUE;
                for (int i = 0; i < scores.length; i++) {
                    if (i % 3 == 0) {
                        highestBrief = Math.max(highestBrief, scores[i]);
                    } else if (i % 3 == 2) {
                        lowestEssay = Math.min(lowestEssay, scores[i]);
                    }
                }
                assertTrue(lowestEssay > highestBrief, objective + ": essays from " + lowestEssay + ", briefs up to " + highestBrief);
                assertEquals(objective.id(), estimator.metadata().objective());
            }
        }
    }

    /** Distinct scores never tie: the key SJF sorts by follows the trees' order exactly. */
    @Test
    void estimatesFollowTheScoresStrictly() {
        List<LabeledPrompt> corpus = TinyModels.corpus();
        try (LexicalEstimator estimator = LexicalTrainer.train(corpus, corpus, TINY).estimator("tiny")) {
            List<Prompt> prompts = corpus.stream().map(LabeledPrompt::request).toList();
            float[] scores = estimator.scores(prompts);
            List<Estimate> estimates = estimator.estimateAll(prompts);
            for (int i = 0; i < scores.length; i++) {
                for (int j = 0; j < scores.length; j++) {
                    if (scores[i] < scores[j]) {
                        assertTrue(estimates.get(i).expectedTokens() < estimates.get(j).expectedTokens(), i + " vs " + j);
                    }
                }
            }
        }
    }

    @Test
    void theShippedFormLoadsFromItsFilesAndDescribesItself(@TempDir Path dir) throws Exception {
        List<LabeledPrompt> corpus = TinyModels.corpus();
        Path file = dir.resolve("lexical.onnx");
        LexicalTrainer.train(corpus, corpus, TINY).writeTo(file);
        try (LexicalEstimator estimator = LexicalEstimator.load(file)) {
            assertEquals(RequestFeatures.NAMES, estimator.metadata().featureNames());
            assertEquals(36, estimator.metadata().training().prompts());
            Estimate essay = estimator.estimate(corpus.get(2).request());
            Estimate brief = estimator.estimate(corpus.get(0).request());
            assertTrue(essay.expectedTokens() > 800 && brief.expectedTokens() < 200, brief + " / " + essay);
        }
    }

    /** No training prompt has a system prompt, so the shipped trees never read one: a client's leaves each estimate as it was. */
    @Test
    void theShippedModelIgnoresASystemPrompt() {
        try (LexicalEstimator shipped = LexicalEstimator.loadDefault()) {
            for (LabeledPrompt prompt : TinyModels.corpus()) {
                String text = prompt.prompt();
                assertEquals(shipped.estimate(new Prompt(text)), shipped.estimate(new Prompt(text, 1, 400, text.length() + 400)), text);
            }
        }
    }

    @Test
    void corruptOrMismatchedFilesGiveClearLoadErrors(@TempDir Path dir) throws Exception {
        List<LabeledPrompt> corpus = TinyModels.corpus();
        Path file = dir.resolve("lexical.onnx");
        LexicalTrainer.train(corpus, corpus, TINY).writeTo(file);
        Path metadata = ModelFiles.metadataPath(file);
        String json = Files.readString(metadata);

        Files.writeString(metadata, json.replace(RequestFeatures.SCHEMA_VERSION, "request-22/0"));
        ModelLoadException schema = assertThrows(ModelLoadException.class, () -> LexicalEstimator.load(file));
        assertTrue(schema.getMessage().startsWith("lexical model " + file + ": trained for feature schema request-22/0"),
                schema.getMessage());

        Files.writeString(metadata, "{not json");
        assertTrue(assertThrows(ModelLoadException.class, () -> LexicalEstimator.load(file)).getMessage()
                .contains("metadata is not valid"));

        Files.writeString(metadata, json);
        Files.write(file, "not a model".getBytes(StandardCharsets.UTF_8));
        assertTrue(assertThrows(ModelLoadException.class, () -> LexicalEstimator.load(file)).getMessage()
                .contains("not a usable ONNX tree ensemble"));

        Files.delete(file);
        assertTrue(assertThrows(ModelLoadException.class, () -> LexicalEstimator.load(file)).getMessage()
                .contains("no such file"));
    }
}
