package dev.triage.proxy.scheduler.ewsjf;

/**
 * The sizes one EWSJF queue takes, {@code [lower, upper]}, and what the partition saw of them.
 *
 * @param lower the smallest size of the queue
 * @param upper the largest size of the queue, at least {@code lower}
 * @param meanSize the mean size of the jobs that formed it, b̄: the meta-policy's input
 * @param share the fraction of the observed jobs it holds (0 for a bubble queue)
 * @param bubble true for a queue made on demand for a job that fell into a gap between queues
 */
public record SizeRange(double lower, double upper, double meanSize, double share, boolean bubble) {

    public SizeRange {
        if (!(lower >= 0) || !(upper >= lower) || Double.isNaN(meanSize) || !(share >= 0)) {
            throw new IllegalArgumentException("size range [" + lower + ", " + upper + "], mean " + meanSize
                    + ", share " + share + " (expected: 0 <= lower <= upper, share >= 0)");
        }
    }

    public double width() {
        return upper - lower;
    }

    public boolean contains(double size) {
        return size >= lower && size <= upper;
    }
}
