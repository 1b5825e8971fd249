package dev.triage.proxy.scheduler;

/**
 * What a job has received so far: tokens, slot time, its level, whether its token rate is
 * perceptible, how often it was paused. Kept by the {@link Scheduler} from the progress its holder
 * reports; read by the {@code laps} order, the queue view and the simulator. Owned by the
 * scheduler's thread.
 */
public final class JobProgress {

    private final double[] windowSecondsPerToken;
    private long tokens;
    private long attainedNanos;
    private long runStartNanos = -1;
    private long windowStartTokens = -1;
    private long windowStartNanos;
    private int windows;
    private int level = 1;
    private int runStartLevel = 1;
    private long levelEntry;
    private int preemptions;
    private boolean perceptible;
    private double secondsPerToken;
    private double remainingSeconds;

    JobProgress(int stableWindows, long levelEntry) {
        this.windowSecondsPerToken = new double[stableWindows];
        this.levelEntry = levelEntry;
    }

    /** Tokens generated so far, over every run. */
    public long tokens() {
        return tokens;
    }

    /** Seconds the job has held a slot, its current run included. */
    public double attainedSeconds(long nowNanos) {
        long running = runStartNanos < 0 ? 0 : nowNanos - runStartNanos;
        return (attainedNanos + running) / 1e9;
    }

    /** 1 for new jobs; deeper as service accrues (only {@code laps} moves jobs down). */
    public int level() {
        return level;
    }

    /** How many times the job was paused. */
    public int preemptions() {
        return preemptions;
    }

    /** True while the job waits to resume after a pause. */
    public boolean paused() {
        return preemptions > 0 && runStartNanos < 0;
    }

    /** True once the job's token rate is known well enough to predict its remaining time. */
    public boolean perceptible() {
        return perceptible;
    }

    /** The predicted remaining time the {@code laps} order used when the job last joined the queue. */
    public double remainingSeconds() {
        return remainingSeconds;
    }

    /** True once the current run has moved the job down a level: its quantum in the level above is used up. */
    boolean movedDownThisRun() {
        return level > runStartLevel;
    }

    long levelEntry() {
        return levelEntry;
    }

    boolean running() {
        return runStartNanos >= 0;
    }

    void started(long nowNanos) {
        runStartNanos = nowNanos;
        runStartLevel = level;
        // The first window opens at the first token, so a prefill does not count as a slow window.
        windowStartTokens = -1;
    }

    void stopped(long nowNanos) {
        attainedNanos += nowNanos - runStartNanos;
        runStartNanos = -1;
    }

    void countPause() {
        preemptions++;
    }

    /** Records the tokens generated so far; returns true when a rate window closed. */
    boolean produced(long tokensSoFar, long nowNanos, int windowTokens) {
        if (tokensSoFar <= tokens && windowStartTokens >= 0) {
            return false;
        }
        tokens = Math.max(tokens, tokensSoFar);
        if (windowStartTokens < 0) {
            windowStartTokens = tokens;
            windowStartNanos = nowNanos;
            return false;
        }
        long windowed = tokens - windowStartTokens;
        if (windowed < windowTokens) {
            return false;
        }
        if (windowSecondsPerToken.length > 0) {
            windowSecondsPerToken[windows % windowSecondsPerToken.length] = (nowNanos - windowStartNanos) / 1e9 / windowed;
        }
        windows++;
        windowStartTokens = tokens;
        windowStartNanos = nowNanos;
        return true;
    }

    /** Marks the rate perceptible when the last γ windows agree within δ; the rate is their mean. */
    void checkRate(double rateTolerance) {
        int gamma = windowSecondsPerToken.length;
        if (gamma == 0 || windows < gamma) {
            return;
        }
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        double sum = 0;
        for (double window : windowSecondsPerToken) {
            min = Math.min(min, window);
            max = Math.max(max, window);
            sum += window;
        }
        double mean = sum / gamma;
        if (perceptible || mean > 0 && (max - min) / mean <= rateTolerance) {
            perceptible = true;
            secondsPerToken = mean;
        }
    }

    /**
     * Perceptible from the start at the prior rate: the policy's γ = 0, which trusts the service-time
     * model's rate over any window. Set again at each new cost, so a job that waits is ranked by the
     * same, current model as a newcomer.
     */
    void perceive(double priorSecondsPerToken) {
        perceptible = true;
        secondsPerToken = priorSecondsPerToken;
    }

    double secondsPerToken() {
        return secondsPerToken;
    }

    /** Moves the job to {@code newLevel}, behind the jobs already there. */
    void moveTo(int newLevel, long entry) {
        if (newLevel != level) {
            level = newLevel;
            levelEntry = entry;
        }
    }

    void remainingSeconds(double seconds) {
        remainingSeconds = seconds;
    }
}
