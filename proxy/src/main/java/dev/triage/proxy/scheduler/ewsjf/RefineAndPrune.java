package dev.triage.proxy.scheduler.ewsjf;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * EWSJF's Refine-and-Prune (§4.2): partitions a window of observed job sizes into at most
 * {@code maxQueues} contiguous ranges of similar sizes.
 *
 * <ol>
 *   <li><b>Coarse:</b> one-dimensional k-means with k = 3 (short, medium, long), seeded at the 1/6,
 *       1/2 and 5/6 quantiles, so the same window always gives the same partition.</li>
 *   <li><b>Refine:</b> a cluster whose largest gap between consecutive sizes exceeds α × its mean gap
 *       is split there, recursively, until no gap is significant or the cluster is narrower than
 *       {@code minWidth}.</li>
 *   <li><b>Prune:</b> while there are more than {@code maxQueues} ranges, the two adjacent ranges of
 *       highest utility U = (ρ_i + ρ_i+1) / (|b̄_i+1 − b̄_i| + ε) are merged, ρ being a range's share of
 *       the jobs per token of width (at least {@code minWidth}). The paper says the lowest-utility
 *       queues are merged, but by its own formula those are the sparse ranges far apart, and merging
 *       them builds the heterogeneous mega-queues pruning is meant to avoid; close, dense ranges are
 *       the micro-queues it is meant to remove, so the highest are merged here.</li>
 * </ol>
 *
 * <p>Sorting dominates: O(N log N) for N sizes, plus O(k²) for pruning k refined ranges. It runs off
 * the dispatch thread.
 *
 * <pre>{@code
 * Partition partition = RefineAndPrune.partition(sizes, 3.0, 32, 16);
 * }</pre>
 */
public final class RefineAndPrune {

    /** Tokens added to the distance between two ranges' means, so that equal means do not divide by 0. */
    static final double EPSILON = 1;

    private static final int COARSE_CLUSTERS = 3;
    private static final int KMEANS_ROUNDS = 100;

    private RefineAndPrune() {}

    /**
     * @param sizes the observed sizes, at least one, each finite and at least 0 (not modified)
     * @param alpha the gap significance ratio α, above 1
     * @param minWidth the width below which a cluster is not split, at least 0
     * @param maxQueues the most ranges the partition may have, at least 1
     */
    public static Partition partition(double[] sizes, double alpha, double minWidth, int maxQueues) {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("no sizes to partition");
        }
        if (!(alpha > 1) || Double.isInfinite(alpha) || !(minWidth >= 0) || maxQueues < 1) {
            throw new IllegalArgumentException("alpha " + alpha + ", min width " + minWidth + ", max queues " + maxQueues
                    + " (expected: alpha > 1, min width >= 0, max queues >= 1)");
        }
        double[] sorted = sizes.clone();
        Arrays.sort(sorted);
        if (!(sorted[0] >= 0) || Double.isInfinite(sorted[sorted.length - 1]) || Double.isNaN(sorted[sorted.length - 1])) {
            throw new IllegalArgumentException("sizes from " + sorted[0] + " to " + sorted[sorted.length - 1]
                    + " (expected: finite, >= 0)");
        }
        Sizes window = new Sizes(sorted);
        List<Cluster> refined = new ArrayList<>();
        for (Cluster coarse : coarse(window)) {
            refined.addAll(refine(window, coarse, alpha, minWidth));
        }
        List<Cluster> pruned = prune(window, refined, minWidth, maxQueues);
        List<SizeRange> ranges = new ArrayList<>(pruned.size());
        for (Cluster cluster : pruned) {
            ranges.add(new SizeRange(window.lower(cluster), window.upper(cluster), window.mean(cluster),
                    (double) cluster.count() / sorted.length, false));
        }
        return new Partition(ranges);
    }

    /** A run of the sorted sizes, {@code [from, to)}. */
    record Cluster(int from, int to) {
        int count() {
            return to - from;
        }
    }

    /** The sorted sizes with prefix sums, so a cluster's mean is O(1). */
    private static final class Sizes {
        final double[] sorted;
        final double[] prefix;

        Sizes(double[] sorted) {
            this.sorted = sorted;
            this.prefix = new double[sorted.length + 1];
            for (int i = 0; i < sorted.length; i++) {
                prefix[i + 1] = prefix[i] + sorted[i];
            }
        }

        double lower(Cluster c) {
            return sorted[c.from()];
        }

        double upper(Cluster c) {
            return sorted[c.to() - 1];
        }

        double width(Cluster c) {
            return upper(c) - lower(c);
        }

        double mean(Cluster c) {
            return (prefix[c.to()] - prefix[c.from()]) / c.count();
        }
    }

    /**
     * Lloyd's k-means on sorted one-dimensional data: every cluster is a run of the sorted sizes, so
     * an assignment is two boundaries, each at the midpoint of two neighbouring centroids. Equal sizes
     * always land in the same cluster; empty clusters are dropped.
     */
    static List<Cluster> coarse(double[] sorted) {
        return coarse(new Sizes(sorted));
    }

    private static List<Cluster> coarse(Sizes window) {
        double[] sorted = window.sorted;
        int n = sorted.length;
        double[] centroids = new double[COARSE_CLUSTERS];
        for (int k = 0; k < COARSE_CLUSTERS; k++) {
            centroids[k] = sorted[Math.min(n - 1, (int) ((2 * k + 1) * (long) n / (2 * COARSE_CLUSTERS)))];
        }
        int[] starts = new int[COARSE_CLUSTERS + 1];
        for (int round = 0; round < KMEANS_ROUNDS; round++) {
            int[] next = new int[COARSE_CLUSTERS + 1];
            next[COARSE_CLUSTERS] = n;
            for (int k = 1; k < COARSE_CLUSTERS; k++) {
                double boundary = (centroids[k - 1] + centroids[k]) / 2;
                // First index whose size lies above the boundary; ties go to the lower cluster.
                int index = upperBound(sorted, boundary);
                next[k] = Math.max(index, next[k - 1]);
            }
            if (Arrays.equals(next, starts)) {
                break;
            }
            starts = next;
            for (int k = 0; k < COARSE_CLUSTERS; k++) {
                if (starts[k + 1] > starts[k]) {
                    centroids[k] = window.mean(new Cluster(starts[k], starts[k + 1]));
                }
            }
        }
        List<Cluster> clusters = new ArrayList<>();
        for (int k = 0; k < COARSE_CLUSTERS; k++) {
            if (starts[k + 1] > starts[k]) {
                clusters.add(new Cluster(starts[k], starts[k + 1]));
            }
        }
        return clusters;
    }

    private static int upperBound(double[] sorted, double value) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (sorted[mid] <= value) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** Splits a cluster at its significant gaps (Equation 2), depth first, without recursion on the stack. */
    private static List<Cluster> refine(Sizes window, Cluster cluster, double alpha, double minWidth) {
        List<Cluster> leaves = new ArrayList<>();
        Deque<Cluster> pending = new ArrayDeque<>();
        pending.push(cluster);
        while (!pending.isEmpty()) {
            Cluster c = pending.pop();
            int split = significantGap(window, c, alpha, minWidth);
            if (split < 0) {
                leaves.add(c);
            } else {
                // The right part is pushed first so that leaves come out in rising order.
                pending.push(new Cluster(split, c.to()));
                pending.push(new Cluster(c.from(), split));
            }
        }
        return leaves;
    }

    /** The index that starts the right part of a split at the cluster's largest gap, or -1 for none. */
    private static int significantGap(Sizes window, Cluster c, double alpha, double minWidth) {
        double width = window.width(c);
        if (c.count() < 2 || width < minWidth || width == 0) {
            return -1;
        }
        double meanGap = width / (c.count() - 1);
        double[] sorted = window.sorted;
        int largest = -1;
        double largestGap = 0;
        for (int i = c.from(); i < c.to() - 1; i++) {
            double gap = sorted[i + 1] - sorted[i];
            if (gap > largestGap) {
                largestGap = gap;
                largest = i + 1;
            }
        }
        return largestGap > alpha * meanGap ? largest : -1;
    }

    /** Merges adjacent clusters of highest utility (Equation 3) until at most {@code maxQueues} remain. */
    private static List<Cluster> prune(Sizes window, List<Cluster> clusters, double minWidth, int maxQueues) {
        List<Cluster> merged = new ArrayList<>(clusters);
        int total = window.sorted.length;
        while (merged.size() > maxQueues) {
            int best = 0;
            double bestUtility = Double.NEGATIVE_INFINITY;
            for (int i = 0; i + 1 < merged.size(); i++) {
                Cluster left = merged.get(i);
                Cluster right = merged.get(i + 1);
                double utility = (density(window, left, total, minWidth) + density(window, right, total, minWidth))
                        / (Math.abs(window.mean(right) - window.mean(left)) + EPSILON);
                if (utility > bestUtility) {
                    bestUtility = utility;
                    best = i;
                }
            }
            Cluster union = new Cluster(merged.get(best).from(), merged.get(best + 1).to());
            merged.set(best, union);
            merged.remove(best + 1);
        }
        return merged;
    }

    /** ρ: the cluster's share of the jobs per token of its width, the width counted as at least {@code minWidth} (and 1). */
    private static double density(Sizes window, Cluster c, int total, double minWidth) {
        return (double) c.count() / total / Math.max(Math.max(window.width(c), minWidth), 1);
    }
}
