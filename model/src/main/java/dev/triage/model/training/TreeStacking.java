package dev.triage.model.training;

/**
 * How trees are stacked on the ranker's head: XGBoost fitted to the same target as the
 * {@code lexical} trees (squared error on a model's log answer length less that model's mean) over
 * the {@link dev.triage.features.RequestFeatures} and the head's score. The head's score of a training
 * prompt is taken from a head trained without that prompt's fold (chosen by its text, so that a prompt
 * found in two sources is on one side), so that the trees learn how far
 * to trust the head on prompts it has not seen, as every served prompt is. The trees may only raise
 * the score as the head's score, the prompt or the conversation grows.
 *
 * @param folds how many folds the training prompts are cut into for the out-of-fold scores (and as
 *     many heads trained besides the served one); 0: no trees, the head's score is the model's
 * @param boosting the trees' count, depth, learning rate and seed; ignored without folds
 */
public record TreeStacking(int folds, TrainingSettings boosting) {

    /** The head alone; its trees are where {@code scripts/train --stack-folds N} starts. */
    public static final TreeStacking NONE = new TreeStacking(0, LexicalSettings.DEFAULTS.boosting());

    /** The stacking {@link TrainingChoices} weighs against the head alone: five folds, the lexical trees' boosting. */
    public static final TreeStacking COMPARED = new TreeStacking(5, LexicalSettings.DEFAULTS.boosting());

    public TreeStacking {
        if (folds < 0 || folds == 1) {
            throw new IllegalArgumentException("folds: " + folds + " (expected: 0, or at least 2)");
        }
        if (boosting == null) {
            throw new IllegalArgumentException("boosting: null");
        }
    }

    boolean stacked() {
        return folds > 0;
    }
}
