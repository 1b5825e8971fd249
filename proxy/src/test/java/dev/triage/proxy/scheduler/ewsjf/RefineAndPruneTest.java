package dev.triage.proxy.scheduler.ewsjf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class RefineAndPruneTest {

    /** {@code count} sizes spread evenly over [from, to]. */
    private static DoubleStream spread(double from, double to, int count) {
        return DoubleStream.iterate(from, x -> x + (to - from) / (count - 1)).limit(count);
    }

    private static double[] concat(DoubleStream... parts) {
        return Arrays.stream(parts).flatMapToDouble(part -> part).toArray();
    }

    private static List<double[]> bounds(Partition partition) {
        List<double[]> bounds = new ArrayList<>();
        for (SizeRange range : partition.ranges()) {
            bounds.add(new double[] {range.lower(), range.upper()});
        }
        return bounds;
    }

    @Test
    void threeSeparatedModesBecomeThreeQueuesWithTheirOwnBounds() {
        double[] sizes = concat(spread(20, 60, 200), spread(400, 480, 100), spread(3000, 3200, 50));
        Partition partition = RefineAndPrune.partition(sizes, 3, 32, 16);
        assertEquals(3, partition.size(), bounds(partition).toString());
        assertArrayEquals(new double[] {20, 60}, bounds(partition).get(0), 1e-9);
        assertArrayEquals(new double[] {400, 480}, bounds(partition).get(1), 1e-9);
        assertArrayEquals(new double[] {3000, 3200}, bounds(partition).get(2), 1e-9);
        assertEquals(200.0 / 350, partition.ranges().get(0).share(), 1e-12);
        assertEquals(40, partition.ranges().get(0).meanSize(), 1e-9);
    }

    @Test
    void aSignificantGapInsideACoarseClusterIsSplitAndAnEvenClusterIsNot() {
        // k-means puts 100..200 and 260..300 together (the long mode is far away); the 60-token gap is
        // far above α × the cluster's mean gap, so refinement splits it. 1000..1100 has no such gap.
        double[] sizes = concat(spread(100, 200, 101), spread(260, 300, 41), spread(1000, 1100, 101), spread(20_000, 20_100, 11));
        Partition partition = RefineAndPrune.partition(sizes, 3, 32, 16);
        List<double[]> bounds = bounds(partition);
        assertEquals(4, partition.size(), bounds.stream().map(Arrays::toString).toList().toString());
        assertArrayEquals(new double[] {100, 200}, bounds.get(0), 1e-9);
        assertArrayEquals(new double[] {260, 300}, bounds.get(1), 1e-9);
        assertArrayEquals(new double[] {1000, 1100}, bounds.get(2), 1e-9);
    }

    @Test
    void aClusterNarrowerThanTheMinimumWidthIsNotSplitHoweverLargeItsGap() {
        // k-means puts 100, 101, 102 and 120 together: a gap of 18 against a mean gap of 6.7, but the
        // cluster is 20 tokens wide.
        double[] narrow = {100, 101, 102, 120, 5000, 5001, 50_000, 50_001};
        Partition whole = RefineAndPrune.partition(narrow, 2, 32, 16);
        assertEquals(3, whole.size(), bounds(whole).toString());
        assertArrayEquals(new double[] {100, 120}, bounds(whole).get(0), 1e-9);
        // The same shape ten times wider is split at its gap.
        double[] wide = {1000, 1010, 1020, 1200, 50_000, 50_010, 500_000, 500_010};
        Partition split = RefineAndPrune.partition(wide, 2, 32, 16);
        assertEquals(4, split.size(), bounds(split).toString());
        assertArrayEquals(new double[] {1000, 1020}, bounds(split).get(0), 1e-9);
    }

    @Test
    void manyModesArePrunedToTheBudgetMergingTheClosestDenseNeighboursFirst() {
        // Ten well-separated modes; 10 and 11 are close, so with a budget of 9 they merge first.
        List<DoubleStream> parts = new ArrayList<>();
        double[] centres = {100, 300, 600, 1000, 1500, 2100, 2800, 3600, 4500, 4560};
        for (double centre : centres) {
            parts.add(spread(centre - 10, centre + 10, 21));
        }
        double[] sizes = concat(parts.toArray(DoubleStream[]::new));
        Partition unpruned = RefineAndPrune.partition(sizes, 3, 8, 64);
        assertEquals(10, unpruned.size(), bounds(unpruned).toString());
        Partition nine = RefineAndPrune.partition(sizes, 3, 8, 9);
        assertEquals(9, nine.size());
        assertArrayEquals(new double[] {4490, 4570}, bounds(nine).get(8), 1e-9);
        for (int budget = 1; budget <= 10; budget++) {
            Partition pruned = RefineAndPrune.partition(sizes, 3, 8, budget);
            assertEquals(budget, pruned.size());
            assertEquals(90, pruned.ranges().get(0).lower(), 1e-9);
            assertEquals(4570, pruned.ranges().get(budget - 1).upper(), 1e-9);
            assertEquals(1, pruned.ranges().stream().mapToDouble(SizeRange::share).sum(), 1e-9, "every size is in one range");
        }
    }

    @Test
    void theSameWindowGivesTheSamePartitionAndIsLeftUntouched() {
        SplittableRandom random = new SplittableRandom(7);
        double[] sizes = new double[2000];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = Math.floor(Math.exp(4 + 2 * random.nextDouble() * random.nextDouble() * 3));
        }
        double[] copy = sizes.clone();
        Partition first = RefineAndPrune.partition(sizes, 3, 32, 32);
        assertArrayEquals(copy, sizes, "the window is not reordered");
        assertEquals(first, RefineAndPrune.partition(sizes, 3, 32, 32));
        assertTrue(first.size() <= 32);
        // A larger α finds fewer significant gaps.
        assertTrue(RefineAndPrune.partition(sizes, 20, 32, 1000).size() <= RefineAndPrune.partition(sizes, 2, 32, 1000).size());
    }

    @Test
    void coarseKMeansFindsTheThreeModes() {
        double[] sorted = concat(spread(10, 20, 50), spread(500, 520, 30), spread(9000, 9100, 20));
        List<RefineAndPrune.Cluster> clusters = RefineAndPrune.coarse(sorted);
        assertEquals(List.of(new RefineAndPrune.Cluster(0, 50), new RefineAndPrune.Cluster(50, 80), new RefineAndPrune.Cluster(80, 100)), clusters);
        assertEquals(List.of(new RefineAndPrune.Cluster(0, 4)), RefineAndPrune.coarse(new double[] {5, 5, 5, 5}), "one value, one cluster");
    }

    @Test
    void badInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> RefineAndPrune.partition(new double[0], 3, 32, 4));
        assertThrows(IllegalArgumentException.class, () -> RefineAndPrune.partition(new double[] {1, 2}, 1, 32, 4));
        assertThrows(IllegalArgumentException.class, () -> RefineAndPrune.partition(new double[] {1, -2}, 3, 32, 4));
        assertThrows(IllegalArgumentException.class, () -> RefineAndPrune.partition(new double[] {1, Double.NaN}, 3, 32, 4));
        assertThrows(IllegalArgumentException.class, () -> RefineAndPrune.partition(new double[] {1, 2}, 3, 32, 0));
    }
}
