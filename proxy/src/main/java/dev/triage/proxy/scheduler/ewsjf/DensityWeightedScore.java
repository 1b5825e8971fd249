package dev.triage.proxy.scheduler.ewsjf;

/**
 * EWSJF's density-weighted score of a queue's oldest job (Equation 4):
 *
 * <pre>
 * Φ(r, q) = qf · (w_base + w_urg(b̄_q) · cs + w_fair(b̄_q) · log(b + 1))
 * qf = q_i / (b + 1)       the queue's index over the job's size: shorter jobs first
 * cs = W / C(b)            the wait in units of the job's cost: urgency normalised by work
 * </pre>
 *
 * with w_base = 1 and the other weights from the meta-policy Θ. The paper does not say which way its
 * queue index q_i counts; here it counts from the queue of the largest sizes (1) to that of the
 * smallest (k), so that both parts of qf favour shorter jobs. Counted the other way, of two queues of
 * nearly equal sizes the larger would always go first. For fixed Θ the score grows linearly
 * and without bound in the wait W, so every waiting job's score eventually exceeds that of any job
 * that has just arrived: no job starves (the paper's Theorem A.1).
 */
public final class DensityWeightedScore {

    private DensityWeightedScore() {}

    /**
     * @param queueIndex q_i: 1 for the queue of the largest sizes, k (the number of queues) for that of the smallest
     * @param size the job's size b, at least 0
     * @param costSeconds the job's cost C(b), positive
     * @param waitSeconds how long the job has waited, at least 0
     * @param meanSize the queue's mean size b̄
     */
    public static double score(int queueIndex, double size, double costSeconds, double waitSeconds, double meanSize,
            Theta theta) {
        double queueFactor = queueIndex / (size + 1);
        double computeScore = waitSeconds / costSeconds;
        return queueFactor * (1 + theta.urgencyWeight(meanSize) * computeScore
                + theta.fairnessWeight(meanSize) * Math.log(size + 1));
    }
}
