package dev.triage.model.training;

/**
 * Adam (Kingma and Ba 2015) with decoupled weight decay (AdamW, Loshchilov and Hutter 2019), the
 * optimizer PARS trains its predictor with. β1 = 0.9, β2 = 0.999, ε = 1e-8.
 */
final class AdamOptimizer {

    private static final double BETA1 = 0.9;
    private static final double BETA2 = 0.999;
    private static final double EPSILON = 1e-8;

    private final double learningRate;
    private final double weightDecay;
    private final double[] firstMoment;
    private final double[] secondMoment;
    private int steps;

    AdamOptimizer(int parameters, double learningRate, double weightDecay) {
        this.learningRate = learningRate;
        this.weightDecay = weightDecay;
        this.firstMoment = new double[parameters];
        this.secondMoment = new double[parameters];
    }

    /** One update of {@code parameters} along {@code gradient} (of the loss to minimize). */
    void step(double[] parameters, double[] gradient) {
        steps++;
        double firstCorrection = 1 - Math.pow(BETA1, steps);
        double secondCorrection = 1 - Math.pow(BETA2, steps);
        for (int i = 0; i < parameters.length; i++) {
            firstMoment[i] = BETA1 * firstMoment[i] + (1 - BETA1) * gradient[i];
            secondMoment[i] = BETA2 * secondMoment[i] + (1 - BETA2) * gradient[i] * gradient[i];
            double update = (firstMoment[i] / firstCorrection) / (Math.sqrt(secondMoment[i] / secondCorrection) + EPSILON);
            parameters[i] -= learningRate * (update + weightDecay * parameters[i]);
        }
    }
}
