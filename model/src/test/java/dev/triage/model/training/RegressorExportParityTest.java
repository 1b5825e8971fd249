package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.RequestFeatures;
import dev.triage.model.classifier.ModelLoadException;
import dev.triage.model.data.AnswerTokens;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.lexical.LexicalMetadata;
import dev.triage.model.ranker.ScoreCalibration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An exported regression or ranking booster must score in ONNX Runtime as XGBoost predicts: trained
 * here on random rows with missing values, binary and integer columns (rows that hit thresholds
 * exactly), compared on held-out rows, NaN and an all-missing row included.
 */
class RegressorExportParityTest {

    private static final int FEATURES = RequestFeatures.COUNT;

    @BeforeAll
    static void needsXGBoost() {
        XGBoostNative.assumeAvailable();
    }

    private static float[] rows(Random random, int n) {
        return OnnxExportParityTest.rows(random, n, FEATURES);
    }

    @Test
    void squaredErrorAndPairwiseBoostersScoreAsXGBoostPredicts() throws Exception {
        for (String objective : List.of("reg:squarederror", "rank:pairwise")) {
            Random random = new Random(5);
            int trainRows = 600;
            float[] train = rows(random, trainRows);
            float[] labels = new float[trainRows];
            for (int i = 0; i < trainRows; i++) {
                float count = train[i * FEATURES + 1];
                float gaussian = train[i * FEATURES + 2];
                labels[i] = (float) ((Float.isNaN(count) ? 20 : count) / 10 + (Float.isNaN(gaussian) ? 0 : gaussian)
                        + random.nextGaussian() * 0.3);
            }
            DMatrix trainMatrix = new DMatrix(train, trainRows, FEATURES, Float.NaN);
            trainMatrix.setLabel(labels);
            if (objective.startsWith("rank")) {
                trainMatrix.setGroup(new int[] {200, 200, 200});
            }
            Map<String, Object> parameters = new HashMap<>();
            parameters.put("objective", objective);
            parameters.put("max_depth", 5);
            parameters.put("eta", 0.2);
            parameters.put("seed", 42);
            parameters.put("nthread", 1);
            Booster booster = XGBoost.train(trainMatrix, parameters, 30, Map.of(), null, null);
            int testRows = 200;
            float[] test = rows(random, testRows);
            for (int f = 0; f < FEATURES; f++) {
                test[f] = Float.NaN;
                test[FEATURES + f] = f % 3 == 0 ? 1 : 0;
            }
            DMatrix testMatrix = new DMatrix(test, testRows, FEATURES, Float.NaN);
            float[][] expected = booster.predict(testMatrix);
            byte[] onnx = OnnxTreeEnsembleWriter.writeRegressor(booster.toByteArray("json"), FEATURES);
            booster.dispose();
            trainMatrix.dispose();
            testMatrix.dispose();

            float[] actual;
            try (LexicalEstimator estimator = LexicalEstimator.fromBytes("parity", onnx, metadata())) {
                actual = estimator.scores(test, testRows);
            }
            double worst = 0;
            double lowest = Double.MAX_VALUE;
            double highest = -Double.MAX_VALUE;
            for (int i = 0; i < testRows; i++) {
                // Within 1e-5 of the score's size: both sum float leaves, in their own order.
                worst = Math.max(worst, Math.abs(expected[i][0] - actual[i]) / Math.max(1, Math.abs(expected[i][0])));
                lowest = Math.min(lowest, expected[i][0]);
                highest = Math.max(highest, expected[i][0]);
            }
            assertTrue(worst <= 1e-5, objective + ": largest relative difference " + worst);
            assertTrue(highest - lowest > 1, objective + ": predictions range over [" + lowest + ", " + highest + "]");
        }
    }

    @Test
    void onlyMarginObjectivesAreExportedAsRegressors() throws Exception {
        DMatrix matrix = new DMatrix(new float[] {0, 1, 2, 3}, 4, 1, Float.NaN);
        matrix.setLabel(new float[] {0, 1, 0, 1});
        Booster booster = XGBoost.train(matrix, Map.of("objective", "binary:logistic", "nthread", 1), 2, Map.of(), null, null);
        byte[] json = booster.toByteArray("json");
        booster.dispose();
        matrix.dispose();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OnnxTreeEnsembleWriter.writeRegressor(json, 1));
        assertTrue(e.getMessage().contains("binary:logistic"), e.getMessage());
    }

    @Test
    void aRegressorForOtherFeaturesIsRefusedWithItsShape() throws Exception {
        DMatrix matrix = new DMatrix(new float[] {0, 1, 2, 3, 4, 5}, 6, 1, Float.NaN);
        matrix.setLabel(new float[] {0, 1, 2, 0, 1, 2});
        Booster booster = XGBoost.train(matrix, Map.of("objective", "reg:squarederror", "nthread", 1), 2, Map.of(), null, null);
        byte[] onnx = OnnxTreeEnsembleWriter.writeRegressor(booster.toByteArray("json"), 1);
        booster.dispose();
        matrix.dispose();
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> LexicalEstimator.fromBytes("narrow.onnx", onnx, metadata()));
        assertTrue(e.getMessage().startsWith("lexical model narrow.onnx: not a usable ONNX tree ensemble: features shape [-1, 1]"),
                e.getMessage());
    }

    static byte[] metadata() {
        return ShippedModel.json(new LexicalMetadata(RequestFeatures.SCHEMA_VERSION, RequestFeatures.NAMES, "regression",
                null, new ScoreCalibration(List.of(-1.0, 1.0), List.of(100.0, 1000.0)), AnswerTokens.TOKENIZER, List.of(), List.of()));
    }
}
