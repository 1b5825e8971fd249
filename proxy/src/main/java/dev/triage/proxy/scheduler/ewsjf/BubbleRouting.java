package dev.triage.proxy.scheduler.ewsjf;

import java.util.List;

/**
 * EWSJF's dispatcher rule (Algorithm 2): a job goes to the queue whose range holds its size; one that
 * falls into a gap goes to the queue below when within 10% of its top, else to the queue above when
 * within 10% of its bottom, else to a new <em>bubble queue</em> centred on its size, at most
 * {@code bubbleWidth} wide and clipped to the gap, so that a kind of job that appears between two
 * refinements is not forced into an ill-fitting queue.
 */
final class BubbleRouting {

    static final double ABOVE_TOLERANCE = 1.10;
    static final double BELOW_TOLERANCE = 0.90;

    /**
     * Where a job goes: an existing queue's index, or a bubble range to insert at that index.
     *
     * @param bubble null when the job joins the queue at {@code index}
     */
    record Route(int index, SizeRange bubble) {}

    private BubbleRouting() {}

    /**
     * @param ranges the queues' ranges, rising and disjoint, at least one
     * @param allowBubble false when no more bubble queues may be made: the job joins the nearest queue
     */
    static Route route(List<SizeRange> ranges, double size, double bubbleWidth, boolean allowBubble) {
        int below = lastAtOrBelow(ranges, size);
        if (below >= 0 && ranges.get(below).contains(size)) {
            return new Route(below, null);
        }
        int above = below + 1 < ranges.size() ? below + 1 : -1;
        if (below >= 0 && size <= ranges.get(below).upper() * ABOVE_TOLERANCE) {
            return new Route(below, null);
        }
        if (above >= 0 && size >= ranges.get(above).lower() * BELOW_TOLERANCE) {
            return new Route(above, null);
        }
        if (!allowBubble) {
            if (below < 0) {
                return new Route(above, null);
            }
            if (above < 0) {
                return new Route(below, null);
            }
            return new Route(size - ranges.get(below).upper() <= ranges.get(above).lower() - size ? below : above, null);
        }
        double floor = below >= 0 ? ranges.get(below).upper() : 0;
        double ceiling = above >= 0 ? ranges.get(above).lower() : Double.MAX_VALUE;
        double half = Math.min(bubbleWidth, ceiling - floor) / 2;
        // The bubble may touch neither neighbour: ranges are disjoint.
        double lower = below >= 0 ? Math.max(size - half, Math.nextUp(floor)) : Math.max(0, size - half);
        double upper = above >= 0 ? Math.min(size + half, Math.nextDown(ceiling)) : size + half;
        return new Route(below + 1, new SizeRange(lower, upper, size, 0, true));
    }

    /** The index of the last range whose lower bound is at most {@code size}, or -1. */
    private static int lastAtOrBelow(List<SizeRange> ranges, double size) {
        int low = 0;
        int high = ranges.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (ranges.get(mid).lower() <= size) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low - 1;
    }
}
