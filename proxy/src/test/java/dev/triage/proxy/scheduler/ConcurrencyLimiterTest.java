package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterTest {

    /**
     * A batched backend on a fake clock, always with requests waiting: each decoding step gives every
     * running request a token and lasts {@code stepSeconds(n)} for n running; a finished request's
     * slot goes to the next at once.
     */
    private static final class SaturatedBackend {
        private final SplittableRandom random = new SplittableRandom(7);
        private final List<double[]> running = new ArrayList<>(); // {tokens left, tokens in all, seconds so far}
        private final ConcurrencyLimiter limiter;
        private final IntToDoubleFunction stepSeconds;

        SaturatedBackend(ConcurrencyLimiter limiter, IntToDoubleFunction stepSeconds) {
            this.limiter = limiter;
            this.stepSeconds = stepSeconds;
        }

        /** One decoding step; returns how many requests it completed. */
        int step() {
            while (running.size() < limiter.limit()) {
                int tokens = 20 + random.nextInt(200);
                running.add(new double[] {tokens, tokens, 0});
            }
            double seconds = stepSeconds.applyAsDouble(running.size());
            int completed = 0;
            for (int i = running.size() - 1; i >= 0; i--) {
                double[] job = running.get(i);
                job[2] += seconds;
                if (--job[0] == 0) {
                    running.remove(i);
                    limiter.completed(job[1], job[2], true);
                    completed++;
                }
            }
            return completed;
        }
    }

    /** The limits in force over the second half of {@code steps} steps of a {@link SaturatedBackend}. */
    private static List<Integer> run(ConcurrencyLimiter limiter, IntToDoubleFunction stepSeconds, int steps) {
        SaturatedBackend backend = new SaturatedBackend(limiter, stepSeconds);
        List<Integer> limits = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            backend.step();
            if (step >= steps / 2) {
                limits.add(limiter.limit());
            }
        }
        return limits;
    }

    /** Completions, on a {@link SaturatedBackend}, until the limit first reaches {@code target}. */
    private static int completionsUntil(ConcurrencyLimiter limiter, IntToDoubleFunction stepSeconds, int target) {
        SaturatedBackend backend = new SaturatedBackend(limiter, stepSeconds);
        int completions = 0;
        while (limiter.limit() < target) {
            completions += backend.step();
        }
        return completions;
    }

    private static double mean(List<Integer> limits) {
        return limits.stream().mapToInt(Integer::intValue).average().orElseThrow();
    }

    @Test
    void findsWhereThroughputStopsGrowing() {
        // Memory-bound up to 16 at once (a step takes as long for 1 as for 16), compute-bound past it.
        ConcurrencyLimiter limiter = new ConcurrencyLimiter(1, 128);
        List<Integer> limits = run(limiter, n -> 0.02 * Math.max(1, n / 16.0), 400_000);
        assertTrue(mean(limits) >= 13 && mean(limits) <= 21, "mean limit " + mean(limits));
        assertTrue(limits.stream().allMatch(limit -> limit >= 10 && limit <= 25), "limits " + limits.stream().distinct().toList());
    }

    @Test
    void climbsToTheKneeWithoutMeasuringTheWayBackAtEveryStep() {
        // From 8 to a knee at 16 is three steps of a quarter: each a window to settle and one to
        // measure, about 40 completions apiece, after the first window at 8.
        ConcurrencyLimiter limiter = new ConcurrencyLimiter(1, 64);
        int completions = completionsUntil(limiter, n -> 0.02 * Math.max(1, n / 16.0), 15);
        assertTrue(completions <= 200, completions + " completions to reach 15");
    }

    @Test
    void aBatchThatKeepsPayingGrowsToTheBound() {
        // The replay backend's model: each further request slows a step by 5%, so the batch of 32 still
        // moves 1.3 times the tokens of one of 24.
        ConcurrencyLimiter limiter = new ConcurrencyLimiter(1, 32);
        List<Integer> limits = run(limiter, n -> 0.02 * (1 + 0.05 * (n - 1)), 300_000);
        assertTrue(mean(limits) >= 26, "mean limit " + mean(limits));
        assertTrue(limits.stream().allMatch(limit -> limit <= 32));
    }

    @Test
    void aBackendThatThrashesIsKeptAtTheLowerBound() {
        // Every further request makes the whole batch slower than it gains: throughput falls with n.
        ConcurrencyLimiter limiter = new ConcurrencyLimiter(2, 64);
        List<Integer> limits = run(limiter, n -> 0.02 * Math.pow(n, 1.3), 300_000);
        assertEquals(2, limits.get(limits.size() - 1));
        assertTrue(mean(limits) <= 3, "mean limit " + mean(limits));
    }

    @Test
    void aBackendWithoutAQueueTeachesNothing() {
        ConcurrencyLimiter limiter = new ConcurrencyLimiter(1, 64);
        int start = limiter.limit();
        for (int i = 0; i < 10_000; i++) {
            assertFalse(limiter.completed(100, 2, false));
        }
        assertEquals(start, limiter.limit());
    }

    @Test
    void boundsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new ConcurrencyLimiter(0, 4));
        assertThrows(IllegalArgumentException.class, () -> new ConcurrencyLimiter(5, 4));
        assertEquals(4, new ConcurrencyLimiter(4, 4).limit());
        assertEquals(8, new ConcurrencyLimiter(1, 64).limit());
    }
}
