package dev.triage.model.training;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ml.dmlc.xgboost4j.java.DMatrix;

/** Skips a test when XGBoost4J's native library cannot load (on Debian it needs {@code libgomp1}). */
public final class XGBoostNative {

    private XGBoostNative() {}

    public static void assumeAvailable() {
        String problem = null;
        try {
            new DMatrix(new float[] {0}, 1, 1, Float.NaN).dispose();
        } catch (Exception | LinkageError e) {
            problem = e.toString();
        }
        assumeTrue(problem == null, "XGBoost4J native library unavailable (Debian package libgomp1?): " + problem);
    }
}
