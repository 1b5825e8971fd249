package dev.triage.model.training;

/**
 * The XGBoost hyper-parameters of the length classifier. The defaults are Clairvoyant's (§4.3): 300
 * boosting rounds, depth 6, learning rate 0.1, seed 42. The shipped model was trained with
 * {@code --trees 50 --max-depth 4}, chosen on the validation split and by cross-validation on the
 * training prompts (the defaults overfit this data); {@code docs/classifier-evaluation.md} has the
 * settings of the model it evaluates.
 *
 * @param trees boosting rounds (each adds one tree per class)
 * @param maxDepth maximum depth of a tree
 * @param learningRate shrinkage of each round (XGBoost's eta)
 * @param seed random seed
 */
public record TrainingSettings(int trees, int maxDepth, double learningRate, long seed) {

    public static final TrainingSettings DEFAULTS = new TrainingSettings(300, 6, 0.1, 42);

    public TrainingSettings {
        if (trees < 1) {
            throw new IllegalArgumentException("trees: " + trees + " (expected: >= 1)");
        }
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth: " + maxDepth + " (expected: >= 1)");
        }
        if (!(learningRate > 0 && learningRate <= 1)) {
            throw new IllegalArgumentException("learningRate: " + learningRate + " (expected: in (0, 1])");
        }
    }
}
