package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.LexicalFeatures;
import dev.triage.model.classifier.OnnxLengthClassifier;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The exported ONNX model must give XGBoost's own probabilities: trained here on random rows with
 * missing values, binary and integer columns (so rows hit split thresholds exactly), compared on
 * held-out rows, NaN included.
 */
class OnnxExportParityTest {

    private static final int FEATURES = LexicalFeatures.COUNT;

    @BeforeAll
    static void needsXGBoost() {
        XGBoostNative.assumeAvailable();
    }

    private static float[] rows(Random random, int n) {
        return rows(random, n, FEATURES);
    }

    /** Random rows with missing values, binary flags, counts and real values: what every exporter's parity is checked on. */
    static float[] rows(Random random, int n, int columns) {
        float[] data = new float[n * columns];
        for (int i = 0; i < n; i++) {
            for (int f = 0; f < columns; f++) {
                float value = switch (f % 3) {
                    case 0 -> random.nextInt(2);                       // binary, like the keyword flags
                    case 1 -> random.nextInt(400);                      // counts, like prompt_token_len
                    default -> (float) random.nextGaussian();
                };
                data[i * columns + f] = random.nextDouble() < 0.15 ? Float.NaN : value;
            }
        }
        return data;
    }

    private static float[] labels(float[] data, int n, Random random) {
        float[] labels = new float[n];
        for (int i = 0; i < n; i++) {
            float length = data[i * FEATURES + 1];
            float flag = data[i * FEATURES];
            double signal = (Float.isNaN(length) ? 200 : length) / 130.0 + (flag == 1 ? 1 : 0) + random.nextGaussian() * 0.6;
            labels[i] = signal < 1 ? 0 : signal < 2.2 ? 1 : 2;
        }
        return labels;
    }

    @Test
    void onnxRuntimeGivesXGBoostsProbabilities() throws Exception {
        Random random = new Random(3);
        int trainRows = 800;
        float[] train = rows(random, trainRows);
        DMatrix trainMatrix = new DMatrix(train, trainRows, FEATURES, Float.NaN);
        trainMatrix.setLabel(labels(train, trainRows, random));
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("objective", "multi:softprob");
        parameters.put("num_class", 3);
        parameters.put("max_depth", 6);
        parameters.put("eta", 0.3);
        parameters.put("seed", 42);
        parameters.put("nthread", 1);
        Booster booster = XGBoost.train(trainMatrix, parameters, 40, Map.of(), null, null);

        int testRows = 300;
        float[] test = rows(random, testRows);
        for (int f = 0; f < FEATURES; f++) {
            test[f] = Float.NaN;                       // one row entirely missing
            test[FEATURES + f] = f % 3 == 0 ? 1 : 0;   // one row exactly on binary thresholds
        }
        DMatrix testMatrix = new DMatrix(test, testRows, FEATURES, Float.NaN);
        float[][] expected = booster.predict(testMatrix);
        byte[] onnx = OnnxTreeEnsembleWriter.write(booster.toByteArray("json"), FEATURES, 3);
        booster.dispose();
        trainMatrix.dispose();
        testMatrix.dispose();

        float[][] actual;
        try (OnnxLengthClassifier classifier = OnnxLengthClassifier.open(onnx)) {
            actual = classifier.probabilities(test, testRows);
        }
        double worst = 0;
        for (int i = 0; i < testRows; i++) {
            for (int c = 0; c < 3; c++) {
                worst = Math.max(worst, Math.abs(expected[i][c] - actual[i][c]));
            }
        }
        assertTrue(worst <= 1e-5, "largest difference " + worst);
        // The comparison means something only if the model's outputs vary.
        double lowest = 1;
        double highest = 0;
        for (float[] row : expected) {
            lowest = Math.min(lowest, row[2]);
            highest = Math.max(highest, row[2]);
        }
        assertTrue(highest - lowest > 0.5, "P(long) ranges over [" + lowest + ", " + highest + "]");
    }

    @Test
    void onlyMultiClassSoftprobBoostersAreExported() throws Exception {
        DMatrix matrix = new DMatrix(new float[] {0, 1, 2, 3}, 4, 1, Float.NaN);
        matrix.setLabel(new float[] {0, 1, 0, 1});
        Booster booster = XGBoost.train(matrix, Map.of("objective", "binary:logistic", "nthread", 1), 2, Map.of(), null, null);
        byte[] json = booster.toByteArray("json");
        booster.dispose();
        matrix.dispose();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OnnxTreeEnsembleWriter.write(json, 1, 3));
        assertTrue(e.getMessage().contains("binary:logistic"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> OnnxTreeEnsembleWriter.write("not json".getBytes(), 1, 3));
    }

    @Test
    void aModelForOtherFeaturesIsRefusedByTheServingSide() throws Exception {
        DMatrix matrix = new DMatrix(new float[] {0, 1, 2, 3, 4, 5}, 6, 1, Float.NaN);
        matrix.setLabel(new float[] {0, 1, 2, 0, 1, 2});
        Booster booster = XGBoost.train(matrix,
                Map.of("objective", "multi:softprob", "num_class", 3, "nthread", 1), 2, Map.of(), null, null);
        byte[] onnx = OnnxTreeEnsembleWriter.write(booster.toByteArray("json"), 1, 3);
        booster.dispose();
        matrix.dispose();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OnnxLengthClassifier.open(onnx));
        assertEquals("features shape [-1, 1] (expected: [N, 19])", e.getMessage());
    }
}
