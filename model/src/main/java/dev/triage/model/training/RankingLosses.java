package dev.triage.model.training;

/**
 * The three learning-to-rank losses PARS compares, each with its gradient with respect to the
 * scores it reads. Pure functions; the trainer averages them over a batch.
 */
final class RankingLosses {

    private RankingLosses() {}

    /**
     * PARS's pairwise margin ranking loss, {@code max(0, −y (sA − sB) + margin)}: zero once the
     * prompt with the longer answer outscores the other by the margin.
     *
     * @param y 1 when A's answer is the longer, −1 when B's is
     * @param gradient receives d loss / d sA and d loss / d sB
     */
    static double marginRanking(double scoreA, double scoreB, int y, double margin, double[] gradient) {
        if (y != 1 && y != -1) {
            throw new IllegalArgumentException("y: " + y + " (expected: 1 or -1)");
        }
        double loss = -y * (scoreA - scoreB) + margin;
        if (loss <= 0) {
            gradient[0] = 0;
            gradient[1] = 0;
            return 0;
        }
        gradient[0] = -y;
        gradient[1] = y;
        return loss;
    }

    /**
     * The pointwise loss of the regression predictors PARS compares with: L1 between the score and
     * the log of the answer length, {@code |s − ln(1 + tokens)|}.
     *
     * @param gradient receives d loss / d score
     */
    static double logLengthL1(double score, int answerTokens, double[] gradient) {
        double residual = score - Math.log1p(answerTokens);
        gradient[0] = Math.signum(residual);
        return Math.abs(residual);
    }

    /**
     * ListMLE (Xia et al. 2008), the listwise loss: the negative log-likelihood of the true order
     * under the Plackett-Luce model, {@code Σ_i (log Σ_{j ≥ i} exp s_j − s_i)} over the list sorted
     * from the longest answer down. Computed with running log-sum-exps, so large scores do not
     * overflow.
     *
     * @param scoresLongestFirst the list's scores, ordered by true answer length, longest first
     * @param gradient receives d loss / d score of each position
     */
    static double listMle(double[] scoresLongestFirst, double[] gradient) {
        int n = scoresLongestFirst.length;
        double[] suffixLogSumExp = new double[n];
        double running = Double.NEGATIVE_INFINITY;
        for (int i = n - 1; i >= 0; i--) {
            running = logAddExp(running, scoresLongestFirst[i]);
            suffixLogSumExp[i] = running;
        }
        double loss = 0;
        for (int i = 0; i < n; i++) {
            loss += suffixLogSumExp[i] - scoresLongestFirst[i];
        }
        // d/ds_k = −1 + Σ_{i ≤ k} softmax over positions i..n−1, taken at k.
        double[] prefix = new double[n];
        for (int k = 0; k < n; k++) {
            double share = 0;
            for (int i = 0; i <= k; i++) {
                share += Math.exp(scoresLongestFirst[k] - suffixLogSumExp[i]);
            }
            prefix[k] = share;
        }
        for (int k = 0; k < n; k++) {
            gradient[k] = prefix[k] - 1;
        }
        return loss;
    }

    private static double logAddExp(double a, double b) {
        if (a == Double.NEGATIVE_INFINITY) {
            return b;
        }
        double max = Math.max(a, b);
        return max + Math.log(Math.exp(a - max) + Math.exp(b - max));
    }
}
