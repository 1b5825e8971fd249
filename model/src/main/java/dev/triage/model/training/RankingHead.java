package dev.triage.model.training;

import java.util.Arrays;
import java.util.Random;

/**
 * The ranker's head as it is trained: a one-hidden-layer perceptron from a sentence embedding and the
 * standardized request features beside it to a score, {@code score = w2 · relu(W1 x + b1) + b2}, with the gradient of a score with respect to
 * every parameter. Training runs this in Java; serving runs the same weights exported to ONNX
 * ({@link OnnxRankingHeadWriter}). Not thread-safe: one trainer owns it.
 *
 * <p>The parameters sit in one array so that the optimizer treats them alike: {@code W1} row by row
 * ([hidden][inputs]), then {@code b1} [hidden], {@code w2} [hidden], {@code b2}.
 *
 * <p>A head may carry a fixed prior, {@code score += priorWeight · max(0, x[priorInput] − priorThreshold)},
 * that training never changes: on the standardized log prompt length, a weight of at least 0 keeps
 * the length of a long prompt (one pasting a document to work on) in the score on traffic where the
 * perceptron, trained on sources where length told little, would ignore it.
 */
final class RankingHead {

    final int inputs;
    final int hidden;
    final double[] parameters;
    final int priorInput;
    final double priorWeight;
    final double priorThreshold;

    private RankingHead(int inputs, int hidden, double[] parameters, int priorInput, double priorWeight,
            double priorThreshold) {
        this.inputs = inputs;
        this.hidden = hidden;
        this.parameters = parameters;
        this.priorInput = priorInput;
        this.priorWeight = priorWeight;
        this.priorThreshold = priorThreshold;
    }

    /** A head with He-initialized weights (suited to ReLU) and zero biases. */
    static RankingHead initialized(int inputs, int hidden, Random random) {
        if (inputs < 1 || hidden < 1) {
            throw new IllegalArgumentException("inputs " + inputs + ", hidden " + hidden + " (expected: >= 1 each)");
        }
        double[] parameters = new double[parameterCount(inputs, hidden)];
        double firstScale = Math.sqrt(2.0 / inputs);
        for (int i = 0; i < hidden * inputs; i++) {
            parameters[i] = random.nextGaussian() * firstScale;
        }
        double secondScale = Math.sqrt(1.0 / hidden);
        for (int h = 0; h < hidden; h++) {
            parameters[hidden * inputs + hidden + h] = random.nextGaussian() * secondScale;
        }
        return new RankingHead(inputs, hidden, parameters, 0, 0, 0);
    }

    /**
     * This head with the fixed prior {@code weight · max(0, x[input] − threshold)} added to its score,
     * in place of any prior it had.
     */
    RankingHead withPrior(int input, double weight, double threshold) {
        if (input < 0 || input >= inputs) {
            throw new IllegalArgumentException("prior input " + input + " (expected: 0 to " + (inputs - 1) + ")");
        }
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("prior weight " + weight + " (expected: finite, >= 0)");
        }
        if (!Double.isFinite(threshold)) {
            throw new IllegalArgumentException("prior threshold " + threshold + " (expected: finite)");
        }
        return new RankingHead(inputs, hidden, parameters.clone(), input, weight, threshold);
    }

    /** This head with every weight on the inputs flagged in {@code ignored} set to 0: their values no longer move the score. */
    RankingHead ignoring(boolean[] ignored) {
        if (ignored.length != inputs) {
            throw new IllegalArgumentException(ignored.length + " flags for " + inputs + " inputs");
        }
        double[] zeroed = parameters.clone();
        for (int h = 0; h < hidden; h++) {
            for (int i = 0; i < inputs; i++) {
                if (ignored[i]) {
                    zeroed[h * inputs + i] = 0;
                }
            }
        }
        return new RankingHead(inputs, hidden, zeroed, priorInput, priorWeight, priorThreshold);
    }

    static int parameterCount(int inputs, int hidden) {
        return hidden * inputs + 2 * hidden + 1;
    }

    double score(float[] x) {
        return forward(x, new double[hidden]);
    }

    /** The score of {@code x}; {@code activations} receives the hidden layer's outputs for {@link #backward}. */
    double forward(float[] x, double[] activations) {
        checkInput(x);
        double score = parameters[parameters.length - 1] + priorWeight * Math.max(0, x[priorInput] - priorThreshold);
        int biases = hidden * inputs;
        int outputWeights = biases + hidden;
        for (int h = 0; h < hidden; h++) {
            double sum = parameters[biases + h];
            int row = h * inputs;
            for (int i = 0; i < inputs; i++) {
                sum += parameters[row + i] * x[i];
            }
            double activation = Math.max(0, sum);
            activations[h] = activation;
            score += parameters[outputWeights + h] * activation;
        }
        return score;
    }

    /**
     * Adds {@code dLoss/dScore × dScore/dParameter} to {@code gradient}, for the input and hidden
     * activations of one {@link #forward} call.
     */
    void backward(float[] x, double[] activations, double dScore, double[] gradient) {
        if (dScore == 0) {
            return;
        }
        int biases = hidden * inputs;
        int outputWeights = biases + hidden;
        gradient[parameters.length - 1] += dScore;
        for (int h = 0; h < hidden; h++) {
            gradient[outputWeights + h] += dScore * activations[h];
            if (activations[h] <= 0) {
                continue;
            }
            double dHidden = dScore * parameters[outputWeights + h];
            gradient[biases + h] += dHidden;
            int row = h * inputs;
            for (int i = 0; i < inputs; i++) {
                gradient[row + i] += dHidden * x[i];
            }
        }
    }

    /**
     * This head with every parameter rounded to a float, as the ONNX export stores it: scores of
     * the rounded head are what serving computes.
     */
    RankingHead roundedToFloat() {
        double[] rounded = new double[parameters.length];
        for (int i = 0; i < rounded.length; i++) {
            rounded[i] = (float) parameters[i];
        }
        return new RankingHead(inputs, hidden, rounded, priorInput, (float) priorWeight, (float) priorThreshold);
    }

    /** {@code W1} as floats, row-major [hidden][inputs]. */
    float[] firstWeights() {
        return floats(0, hidden * inputs);
    }

    float[] firstBiases() {
        return floats(hidden * inputs, hidden);
    }

    float[] secondWeights() {
        return floats(hidden * inputs + hidden, hidden);
    }

    float secondBias() {
        return (float) parameters[parameters.length - 1];
    }

    private float[] floats(int from, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = (float) parameters[from + i];
        }
        return values;
    }

    private void checkInput(float[] x) {
        if (x.length != inputs) {
            throw new IllegalArgumentException("input of " + x.length + " values (expected: " + inputs + ")");
        }
    }

    @Override
    public String toString() {
        return "RankingHead[" + inputs + " → " + hidden + " → 1, |θ|₂ = "
                + Math.sqrt(Arrays.stream(parameters).map(p -> p * p).sum()) + (priorWeight == 0 ? "" : ", prior " + priorWeight + " × max(0, x[" + priorInput + "] − " + priorThreshold + ")") + "]";
    }
}
