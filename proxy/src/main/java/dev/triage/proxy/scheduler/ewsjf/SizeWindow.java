package dev.triage.proxy.scheduler.ewsjf;

import java.util.Arrays;

/** The latest job sizes, a ring of fixed capacity: what Refine-and-Prune partitions. Confined to one thread. */
final class SizeWindow {

    private final double[] sizes;
    private int next;
    private int count;

    SizeWindow(int capacity) {
        this.sizes = new double[capacity];
    }

    void add(double size) {
        sizes[next] = size;
        next = (next + 1) % sizes.length;
        count = Math.min(count + 1, sizes.length);
    }

    int count() {
        return count;
    }

    /** A copy of the sizes held, in no particular order. */
    double[] snapshot() {
        return Arrays.copyOf(sizes, count);
    }
}
