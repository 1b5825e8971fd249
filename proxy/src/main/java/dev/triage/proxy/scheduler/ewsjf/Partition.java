package dev.triage.proxy.scheduler.ewsjf;

import java.util.List;

/**
 * EWSJF's queue structure: contiguous, non-overlapping size ranges in rising order, with gaps between
 * them where the observed sizes had none. Immutable, so a partition refined on another thread is
 * swapped in whole.
 */
public record Partition(List<SizeRange> ranges) {

    public Partition {
        ranges = List.copyOf(ranges);
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("a partition needs at least one range");
        }
        for (int i = 1; i < ranges.size(); i++) {
            if (!(ranges.get(i).lower() > ranges.get(i - 1).upper())) {
                throw new IllegalArgumentException("ranges " + ranges.get(i - 1) + " and " + ranges.get(i)
                        + " overlap or are out of order (expected: rising, disjoint)");
            }
        }
    }

    /** One queue for every size: what EWSJF starts with, before it has seen any traffic. */
    public static Partition single() {
        return new Partition(List.of(new SizeRange(0, Double.MAX_VALUE, 0, 1, false)));
    }

    public int size() {
        return ranges.size();
    }
}
