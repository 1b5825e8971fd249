package dev.triage.proxy.scheduler;

/**
 * Finds, and keeps finding, how many requests a batched backend should run at once: the concurrency
 * past which its throughput stops growing while each request's latency keeps rising. It climbs the
 * objective {@code ln X(n) − ε ln n}, X the output tokens per second of the backend while n requests
 * run, measured as n times the tokens per second of each completed request (its tokens over its
 * service time: far steadier than counting the tokens that happen to end in a window),
 * whose top is where one more percent of concurrency buys less than ε percent of throughput
 * ({@link #ELASTICITY}): below it, a larger batch is nearly free; above it, the batch mostly makes
 * every request slower, and the requests are better kept in Triage's queue, where the policy orders
 * them.
 *
 * <p>It measures in windows of completed requests, only while the backend is saturated (requests
 * wait: an idle backend says nothing about a larger batch). Each cycle measures the limit in force,
 * then tries a limit a quarter higher and, unless that one scored better by a margin, a quarter
 * lower. A trial that wins becomes the limit in force and the next trial goes on the same way at
 * once, so a limit far from the best gets there in one window pair per step rather than a whole
 * cycle; when neither way wins, the limit stays and the cycle begins again. After every change, one
 * window is let pass before measuring, for the batch to settle.
 *
 * <pre>{@code
 * ConcurrencyLimiter limiter = new ConcurrencyLimiter(1, 64);
 * limiter.completed(tokens, serviceSeconds, queueWaiting);   // each completed request
 * permits.limit(limiter.limit());
 * }</pre>
 *
 * <p>Not thread-safe: fed and read by the thread that owns the queue.
 */
public final class ConcurrencyLimiter {

    /** The throughput elasticity below which a larger batch is not worth its latency. */
    static final double ELASTICITY = 0.3;
    /** A trial limit must score this much better than the one in force to replace it (measurement noise). */
    static final double MARGIN = 0.02;
    /** The step between the limit in force and the trials: a quarter of it, at least 1. */
    static final double STEP = 1.25;
    /** Fewest completions in a window. */
    static final int MIN_WINDOW = 16;
    /** Share of a window's completions that must have found requests waiting for it to count. */
    static final double SATURATED_SHARE = 0.8;

    private enum Phase { SETTLE, BASE, UP, DOWN }

    private final int min;
    private final int max;
    private int limit;
    /** The limit in force between trials. */
    private int base;
    private double baseScore;
    private Phase phase = Phase.SETTLE;
    private Phase afterSettling = Phase.BASE;
    private int windowCompletions;
    private int windowSaturated;
    private double windowTokens;
    private double windowSeconds;

    /**
     * Starts at the geometric middle of the bounds, so that the first cycles move by large steps in
     * either direction.
     *
     * @param min the fewest requests it lets run at once, at least 1
     * @param max the most, at least {@code min}: the backend's own slots, or what its memory holds
     */
    public ConcurrencyLimiter(int min, int max) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("bounds " + min + ".." + max + " (expected: 1 <= min <= max)");
        }
        this.min = min;
        this.max = max;
        this.limit = clamp((int) Math.round(Math.sqrt((double) min * max)));
        this.base = limit;
    }

    /** How many requests may run at once now. */
    public int limit() {
        return limit;
    }

    public int min() {
        return min;
    }

    public int max() {
        return max;
    }

    /**
     * A request finished.
     *
     * @param tokens the tokens it generated
     * @param serviceSeconds the time it held its slot
     * @param saturated true when requests were waiting for a slot as it finished
     * @return true when the limit changed
     */
    public boolean completed(double tokens, double serviceSeconds, boolean saturated) {
        if (!(tokens > 0) || !(serviceSeconds > 0) || Double.isInfinite(tokens) || Double.isInfinite(serviceSeconds)) {
            return false; // an answer with no tokens (an error, say) says nothing of the batch's speed
        }
        windowCompletions++;
        windowTokens += tokens;
        windowSeconds += serviceSeconds;
        if (saturated) {
            windowSaturated++;
        }
        if (windowCompletions < Math.max(MIN_WINDOW, 2 * limit)) {
            return false;
        }
        boolean counts = windowSaturated >= SATURATED_SHARE * windowCompletions;
        double score = Math.log(limit * windowTokens / windowSeconds) - ELASTICITY * Math.log(limit);
        startWindow();
        if (phase == Phase.SETTLE) {
            phase = afterSettling;
            return false;
        }
        if (!counts) {
            return false; // not saturated: measure again, at the same limit
        }
        return next(score);
    }

    private boolean next(double score) {
        int before = limit;
        switch (phase) {
            case BASE -> {
                baseScore = score;
                tryLimit(up(base), Phase.UP);
            }
            case UP -> {
                if (limit != base && score > baseScore + MARGIN) {
                    moveBase(score, up(limit), Phase.UP);
                } else {
                    tryLimit(down(base), Phase.DOWN);
                }
            }
            case DOWN -> {
                if (limit != base && score > baseScore + MARGIN) {
                    moveBase(score, down(limit), Phase.DOWN);
                } else {
                    tryLimit(base, Phase.BASE);
                }
            }
            default -> throw new IllegalStateException(phase.name());
        }
        return limit != before;
    }

    /**
     * The trial in force won: it becomes the limit in force, with the score it was just measured at,
     * and the next trial goes on the same way at once; the way back needs no measuring, it just lost.
     */
    private void moveBase(double score, int next, Phase measure) {
        base = limit;
        baseScore = score;
        tryLimit(next, measure);
    }

    /** Moves to {@code trial}, letting a window pass first when it differs from the limit in force. */
    private void tryLimit(int trial, Phase measure) {
        if (trial == limit) {
            phase = measure;
            return;
        }
        limit = trial;
        phase = Phase.SETTLE;
        afterSettling = measure;
    }

    private void startWindow() {
        windowCompletions = 0;
        windowSaturated = 0;
        windowTokens = 0;
        windowSeconds = 0;
    }

    private int up(int n) {
        return clamp(Math.max(n + 1, (int) Math.round(n * STEP)));
    }

    private int down(int n) {
        return clamp(Math.min(n - 1, (int) Math.round(n / STEP)));
    }

    private int clamp(int n) {
        return Math.max(min, Math.min(max, n));
    }
}
