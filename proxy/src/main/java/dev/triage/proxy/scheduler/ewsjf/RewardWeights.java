package dev.triage.proxy.scheduler.ewsjf;

/**
 * The weights λ of the meta-optimizer's reward R = λ1·C + λ2·L − λ3·S − λ4·U (Equation 5), each at
 * least 0. The paper gives no values; by default the latency term leads, the others keep the queues
 * compact, balanced and few.
 */
public record RewardWeights(double compactness, double balance, double proliferation, double latency) {

    public static final RewardWeights DEFAULT = new RewardWeights(0.25, 0.25, 0.1, 1);

    public RewardWeights {
        for (double weight : new double[] {compactness, balance, proliferation, latency}) {
            if (!(weight >= 0) || Double.isInfinite(weight)) {
                throw new IllegalArgumentException("reward weights " + compactness + ", " + balance + ", "
                        + proliferation + ", " + latency + " (expected: finite, >= 0)");
            }
        }
    }
}
