package dev.triage.proxy.scheduler;

/**
 * What is left of an answer that has already produced n tokens, given the estimate it was scheduled
 * by. The ratio of a real length to its estimate is modelled as log-normal, its parameters learned
 * from the last {@code capacity} completed requests (a vague prior, median 1 and σ = 1, until
 * {@link #MIN_SAMPLES} have completed); the expected total is then E[L | L > n], which grows past the
 * estimate once an answer outruns it, as a misjudged long answer does.
 *
 * <pre>{@code
 * RemainingLength remaining = new RemainingLength(500);
 * remaining.learn(120, 480);                                  // estimated 120 tokens, produced 480
 * double left = remaining.expectedRemaining(120, 300);        // 300 produced so far
 * }</pre>
 *
 * <p>Not thread-safe: the scheduler's thread feeds and asks it.
 */
public final class RemainingLength {

    /** Completed requests before the learned ratio replaces the prior. */
    static final int MIN_SAMPLES = 30;
    static final double PRIOR_SIGMA = 1;
    /** Below this the log-ratio spread is not trusted (identical samples would make it 0). */
    static final double MIN_SIGMA = 0.05;

    private final double[] logRatios;
    private int next;
    private int count;
    private double sum;
    private double sumOfSquares;

    public RemainingLength(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        this.logRatios = new double[capacity];
    }

    /** Adds a completed request's estimate and real length, evicting the oldest beyond the capacity. */
    public void learn(double expectedTokens, double actualTokens) {
        double logRatio = Math.log(Math.max(1, actualTokens) / Math.max(1, expectedTokens));
        if (count == logRatios.length) {
            double evicted = logRatios[next];
            sum -= evicted;
            sumOfSquares -= evicted * evicted;
        } else {
            count++;
        }
        logRatios[next] = logRatio;
        sum += logRatio;
        sumOfSquares += logRatio * logRatio;
        next = (next + 1) % logRatios.length;
    }

    /**
     * E[L | L > produced] − produced, at least 1 token; the estimate itself before the first token, so
     * that jobs that have not run keep the order of their estimates whatever the model has learned
     * meanwhile.
     */
    public double expectedRemaining(double expectedTokens, long produced) {
        if (produced <= 0) {
            return Math.max(1, expectedTokens);
        }
        return Math.max(1, expectedTotal(expectedTokens, produced) - produced);
    }

    /** E[L | L > produced] for L = expectedTokens × a log-normal ratio. */
    double expectedTotal(double expectedTokens, long produced) {
        double mu = mu();
        double sigma = sigma();
        double location = Math.log(Math.max(1, expectedTokens)) + mu;
        double mean = Math.exp(location + sigma * sigma / 2);
        if (produced <= 0) {
            return mean;
        }
        double logProduced = Math.log(produced);
        double a = (location - logProduced) / sigma;
        if (a < -30) {
            // Deep in the tail Φ underflows; there ln L − ln n given ln L > ln n is nearly exponential
            // with rate |a| / σ, so E[L | L > n] ≈ n · |a| / (|a| − σ).
            double b = -a;
            return produced * b / (b - sigma);
        }
        return mean * normalCdf(a + sigma) / normalCdf(a);
    }

    double mu() {
        return count < MIN_SAMPLES ? 0 : sum / count;
    }

    double sigma() {
        if (count < MIN_SAMPLES) {
            return PRIOR_SIGMA;
        }
        double mean = sum / count;
        double variance = Math.max(0, sumOfSquares / count - mean * mean);
        return Math.max(MIN_SIGMA, Math.sqrt(variance));
    }

    /** Φ(x), from the complementary error function. */
    static double normalCdf(double x) {
        return 0.5 * erfc(-x / Math.sqrt(2));
    }

    /** erfc(x) by Chebyshev fitting (Numerical Recipes' erfcc): relative error below 1.2e-7 everywhere. */
    static double erfc(double x) {
        double z = Math.abs(x);
        double t = 1 / (1 + 0.5 * z);
        double r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
                + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
                + t * (-0.82215223 + t * 0.17087277)))))))));
        return x >= 0 ? r : 2 - r;
    }
}
