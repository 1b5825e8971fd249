package dev.triage.model.training;

/**
 * How {@link EncoderTuner} tunes the sentence encoder: every layer, at PARS's order of learning rate (it fine-tunes BERT
 * at 2e-5), for a number of steps set by the time a run takes (about 2.4 s a step on two cores), not searched for.
 *
 * @param steps Adam steps; 0 leaves the encoder as shipped
 * @param pairs pairs of prompts per step
 * @param learningRate Adam's step size for the encoder's layers
 * @param headLearningRate Adam's step size for the throwaway head
 */
record EncoderTuning(int steps, int pairs, double learningRate, double headLearningRate) {

    static final EncoderTuning DEFAULTS = new EncoderTuning(300, 16, 3e-5, 1e-3);

    EncoderTuning {
        if (steps < 0) {
            throw new IllegalArgumentException("steps: " + steps + " (expected: >= 0, 0 to leave the encoder as shipped)");
        }
        if (pairs < 1) {
            throw new IllegalArgumentException("pairs: " + pairs + " (expected: >= 1)");
        }
        if (!(learningRate > 0 && learningRate < 1) || !(headLearningRate > 0 && headLearningRate < 1)) {
            throw new IllegalArgumentException("learning rates: " + learningRate + ", " + headLearningRate + " (expected: in (0, 1))");
        }
    }

    boolean tunes() {
        return steps > 0;
    }
}
