package dev.triage.bench.backend;

import dev.triage.model.cli.Flags;
import java.util.Locale;

/**
 * How much longer a decoding step takes as the batch grows, the way a model server's does. Up to
 * {@code computeBound} generations the step is memory-bound: reading the weights dominates, and each
 * further generation adds only {@code perGeneration} of a step for one (its own KV cache to read).
 * Past it the step is compute-bound and lasts in proportion to the batch, so the batch's throughput
 * stops growing there: the knee a server's best concurrency sits at.
 *
 * <pre>{@code
 * BatchSlowdown slowdown = new BatchSlowdown(0.05, 16);
 * slowdown.factor(8);    // 1.35: eight generations at once, each step 35% longer than for one
 * slowdown.factor(32);   // 3.5: twice the step of sixteen, for twice the tokens
 * }</pre>
 *
 * @param perGeneration how much each further generation slows a step while it is memory-bound (0.05: 5%)
 * @param computeBound the batch past which a step is compute-bound; 0 for never
 */
public record BatchSlowdown(double perGeneration, int computeBound) {

    /** 5% per further generation, never compute-bound. */
    public static final BatchSlowdown DEFAULT = new BatchSlowdown(0.05, 0);

    public BatchSlowdown {
        if (!(perGeneration >= 0) || Double.isInfinite(perGeneration)) {
            throw new IllegalArgumentException("batch-slowdown: " + perGeneration + " (expected: >= 0)");
        }
        if (computeBound < 0) {
            throw new IllegalArgumentException("compute-bound-batch: " + computeBound + " (expected: >= 1, or 0 for never)");
        }
    }

    /** Each further generation slows a step by {@code perGeneration}, however large the batch. */
    public static BatchSlowdown linear(double perGeneration) {
        return new BatchSlowdown(perGeneration, 0);
    }

    /** {@code --batch-slowdown} and {@code --compute-bound-batch}, the defaults' where not given. */
    public static BatchSlowdown read(Flags flags) {
        return new BatchSlowdown(flags.number("batch-slowdown", DEFAULT.perGeneration()),
                flags.integer("compute-bound-batch", DEFAULT.computeBound()));
    }

    /** How long a step for {@code batch} generations lasts, in steps for one. */
    public double factor(int batch) {
        double memoryBound = 1 + perGeneration * (batch - 1);
        if (computeBound == 0 || batch <= computeBound) {
            return memoryBound;
        }
        return Math.max(memoryBound, (1 + perGeneration * (computeBound - 1)) * batch / computeBound);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "+%.0f%% per extra batched request%s", perGeneration * 100,
                computeBound == 0 ? "" : ", compute-bound past " + computeBound);
    }
}
