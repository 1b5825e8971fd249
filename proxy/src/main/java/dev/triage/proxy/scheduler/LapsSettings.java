package dev.triage.proxy.scheduler;

/**
 * How the {@code laps} policy (least attained / perceived service, after LAPS-SD) runs a queue.
 *
 * <p>A job's <em>attained service</em> is the time it has held a slot, over all its runs. Level j
 * (1 to K) holds the jobs whose attained service lies in [S_(j−1), S_j), with S_0 = 0 and
 * S_j = M^(j−1) · S_1; the last level has no upper bound. New jobs start in level 1 and move down as
 * they are served. A job's token rate, measured over windows of {@code windowTokens} tokens, is
 * <em>perceptible</em> once its last γ windows agree within δ (the largest minus the smallest rate,
 * over their mean); with γ = 0 every job is perceptible from the start at the rate the backend's
 * service-time model implies. Within a level, perceptible jobs go first by predicted remaining time,
 * the others first come, first served.
 *
 * <p>A running job may be paused for a waiting job of a better level only while its own level is at
 * most {@code preemptiveLevels}, at most {@code maxPreemptions} times, and never once it has been in
 * the system longer than the starvation timeout.
 *
 * @param levels K, at least 1
 * @param growth M, the ratio of consecutive thresholds, above 1
 * @param firstLevelSeconds S_1, the attained service that ends level 1, in seconds
 * @param windowTokens tokens per rate window, at least 1
 * @param stableWindows γ, the windows whose rates must agree; 0 trusts the service-time model's rate
 * @param rateTolerance δ, the largest relative spread of those rates, at least 0
 * @param preemptiveLevels the deepest level whose running jobs may be paused, 0 (none) to K
 * @param maxPreemptions how many times one job may be paused, at least 0
 */
public record LapsSettings(int levels, double growth, double firstLevelSeconds, int windowTokens, int stableWindows,
        double rateTolerance, int preemptiveLevels, int maxPreemptions) {

    /**
     * The defaults: the best settings that pause at all, chosen by simulation on the Clairvoyant mix,
     * the Azure conversation trace and held-out bursts with the real estimators' errors
     * ({@code scripts/simulate laps}; docs/simulation.md says what they are worth).
     */
    public static final LapsSettings DEFAULTS = new LapsSettings(4, 2, 0.25, 16, 0, 0.2, 3, 1);

    public LapsSettings {
        if (levels < 1) {
            throw new IllegalArgumentException("levels: " + levels + " (expected: >= 1)");
        }
        if (!(growth > 1) || Double.isInfinite(growth)) {
            throw new IllegalArgumentException("growth: " + growth + " (expected: finite, > 1)");
        }
        if (!(firstLevelSeconds > 0) || Double.isInfinite(firstLevelSeconds)) {
            throw new IllegalArgumentException("firstLevelSeconds: " + firstLevelSeconds + " (expected: finite, > 0)");
        }
        if (windowTokens < 1) {
            throw new IllegalArgumentException("windowTokens: " + windowTokens + " (expected: >= 1)");
        }
        if (stableWindows < 0) {
            throw new IllegalArgumentException("stableWindows: " + stableWindows + " (expected: >= 0)");
        }
        if (!(rateTolerance >= 0) || Double.isInfinite(rateTolerance)) {
            throw new IllegalArgumentException("rateTolerance: " + rateTolerance + " (expected: finite, >= 0)");
        }
        if (preemptiveLevels < 0 || preemptiveLevels > levels) {
            throw new IllegalArgumentException("preemptiveLevels: " + preemptiveLevels + " (expected: 0 to " + levels + ")");
        }
        if (maxPreemptions < 0) {
            throw new IllegalArgumentException("maxPreemptions: " + maxPreemptions + " (expected: >= 0)");
        }
    }

    /**
     * These settings with some changed, from {@code key=value} pairs separated by commas: {@code levels},
     * {@code growth}, {@code first-level} (seconds, or with {@code ms} or {@code s}), {@code window-tokens},
     * {@code stable-windows}, {@code rate-tolerance}, {@code preemptive-levels}, {@code max-preemptions}.
     * Blank text changes nothing; fewer levels than the preemptive ones, unless those are given too,
     * lowers them to the levels.
     *
     * @throws IllegalArgumentException naming the pair that is wrong
     */
    public LapsSettings with(String pairs) {
        int k = levels;
        double m = growth;
        double s1 = firstLevelSeconds;
        int window = windowTokens;
        int gamma = stableWindows;
        double delta = rateTolerance;
        int preemptive = -1;
        int maxPauses = maxPreemptions;
        for (String pair : pairs.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String key = equals < 0 ? pair.trim() : pair.substring(0, equals).trim();
            String value = equals < 0 ? "" : pair.substring(equals + 1).trim();
            try {
                switch (key) {
                    case "levels" -> k = Integer.parseInt(value);
                    case "growth" -> m = Double.parseDouble(value);
                    case "first-level" -> s1 = seconds(value);
                    case "window-tokens" -> window = Integer.parseInt(value);
                    case "stable-windows" -> gamma = Integer.parseInt(value);
                    case "rate-tolerance" -> delta = Double.parseDouble(value);
                    case "preemptive-levels" -> preemptive = Integer.parseInt(value);
                    case "max-preemptions" -> maxPauses = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException(pair.trim() + " (expected: levels, growth, first-level, "
                            + "window-tokens, stable-windows, rate-tolerance, preemptive-levels or max-preemptions=VALUE)");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(pair.trim() + " (expected: a number)");
            }
        }
        // Unless given, the preemptive levels follow a change of the levels, so "levels=1" alone is valid.
        return new LapsSettings(k, m, s1, window, gamma, delta, preemptive >= 0 ? preemptive : Math.min(preemptiveLevels, k),
                maxPauses);
    }

    private static double seconds(String value) {
        if (value.endsWith("ms")) {
            return Double.parseDouble(value.substring(0, value.length() - 2).trim()) / 1000;
        }
        return Double.parseDouble(value.endsWith("s") ? value.substring(0, value.length() - 1).trim() : value);
    }

    /** The settings as {@link #with} reads them. */
    public String describe() {
        return "levels=" + levels + ",growth=" + number(growth) + ",first-level=" + number(firstLevelSeconds) + "s,window-tokens="
                + windowTokens + ",stable-windows=" + stableWindows + ",rate-tolerance=" + number(rateTolerance)
                + ",preemptive-levels=" + preemptiveLevels + ",max-preemptions=" + maxPreemptions;
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    /** The level (1 to K) of a job that has held a slot for {@code attainedSeconds}. */
    public int levelOf(double attainedSeconds) {
        int level = 1;
        double threshold = firstLevelSeconds;
        while (level < levels && attainedSeconds >= threshold) {
            level++;
            threshold *= growth;
        }
        return level;
    }
}
