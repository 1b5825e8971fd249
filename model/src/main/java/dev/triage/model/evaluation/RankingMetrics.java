package dev.triage.model.evaluation;

import dev.triage.model.LengthClass;
import java.util.Arrays;

/**
 * The measures of how well a score orders jobs by their true length, for any estimator (the
 * classifier, the ranker, the baselines). Pure functions over parallel arrays: {@code scores[i]} is
 * what the estimator said about example {@code i}, {@code trueTokens[i]} the length of its answer.
 *
 * <pre>{@code
 * double accuracy = RankingMetrics.rankingAccuracy(pLong, answerTokens);
 * double tau = RankingMetrics.kendallTauB(expectedTokens, answerTokens);
 * }</pre>
 */
public final class RankingMetrics {

    private RankingMetrics() {}

    /**
     * Correct and total (short, long) pairs of Clairvoyant's Algorithm 1: over every pair of a short
     * example (true length below {@link LengthClass#MEDIUM_FROM}) and a long one (at least
     * {@link LengthClass#LONG_FROM}), the pair is correct when the long one's score is strictly
     * higher; a tie is not correct. Medium examples take no part. Counting pairs rather than a ratio
     * lets several test sets (one per answering model) be pooled exactly. O(n log n).
     */
    public static PairCount rankingPairs(double[] scores, double[] trueTokens) {
        requireSameLength(scores, trueTokens);
        int shorts = 0;
        int longs = 0;
        for (double tokens : trueTokens) {
            LengthClass lengthClass = LengthClass.of(tokens);
            shorts += lengthClass == LengthClass.SHORT ? 1 : 0;
            longs += lengthClass == LengthClass.LONG ? 1 : 0;
        }
        double[] shortScores = new double[shorts];
        double[] longScores = new double[longs];
        shorts = 0;
        longs = 0;
        for (int i = 0; i < scores.length; i++) {
            LengthClass lengthClass = LengthClass.of(trueTokens[i]);
            if (lengthClass == LengthClass.SHORT) {
                shortScores[shorts++] = scores[i];
            } else if (lengthClass == LengthClass.LONG) {
                longScores[longs++] = scores[i];
            }
        }
        Arrays.sort(shortScores);
        long correct = 0;
        for (double longScore : longScores) {
            correct += countBelow(shortScores, longScore);
        }
        return new PairCount(correct, (long) shorts * longs);
    }

    /** Algorithm 1's ranking accuracy of one test set: correct pairs / pairs, NaN when there are none. */
    public static double rankingAccuracy(double[] scores, double[] trueTokens) {
        return rankingPairs(scores, trueTokens).accuracy();
    }

    /**
     * Kendall's τ_b between two orderings of the same examples: (concordant − discordant) pairs over
     * the geometric mean of the pairs untied in each, so ties (many equal scores, equal lengths) are
     * accounted for. NaN when either side is constant. O(n²), fine for test sets of some thousands.
     */
    public static double kendallTauB(double[] x, double[] y) {
        requireSameLength(x, y);
        long concordant = 0;
        long discordant = 0;
        long tiedX = 0;
        long tiedY = 0;
        int n = x.length;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                int dx = Double.compare(x[i], x[j]);
                int dy = Double.compare(y[i], y[j]);
                if (dx == 0 || dy == 0) {
                    tiedX += dx == 0 ? 1 : 0;
                    tiedY += dy == 0 ? 1 : 0;
                } else if ((dx > 0) == (dy > 0)) {
                    concordant++;
                } else {
                    discordant++;
                }
            }
        }
        long pairs = (long) n * (n - 1) / 2;
        double denominator = Math.sqrt((double) (pairs - tiedX) * (pairs - tiedY));
        return denominator == 0 ? Double.NaN : (concordant - discordant) / denominator;
    }

    /** How many of {@code sorted} are strictly below {@code value}. */
    private static int countBelow(double[] sorted, double value) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (sorted[middle] < value) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    private static void requireSameLength(double[] a, double[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("arrays of " + a.length + " and " + b.length + " values (expected: equal lengths)");
        }
    }

    /**
     * Correct and total pairs of Algorithm 1; sums of them pool several test sets.
     *
     * @param correct pairs whose long example scored strictly higher
     * @param pairs short × long pairs compared
     */
    public record PairCount(long correct, long pairs) {

        public static final PairCount NONE = new PairCount(0, 0);

        public PairCount plus(PairCount other) {
            return new PairCount(correct + other.correct, pairs + other.pairs);
        }

        /** correct / pairs, or NaN when there are no pairs to compare. */
        public double accuracy() {
            return pairs == 0 ? Double.NaN : (double) correct / pairs;
        }
    }
}
