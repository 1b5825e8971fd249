package dev.triage.model;

/**
 * What an estimator expects a job to cost: the answer's length in tokens, the length class, and,
 * where a classifier made the estimate, its probability that the answer is long (NaN otherwise).
 * Tokens are the one unit every estimator reports, so SJF, HRRN and the starvation timeout compare
 * estimates from different estimators on the same scale.
 *
 * @param expectedTokens expected output tokens, finite and at least 0
 * @param lengthClass the class the estimate falls in
 * @param longProbability P(long) from a classifier, or NaN
 */
public record Estimate(double expectedTokens, LengthClass lengthClass, double longProbability) {

    public Estimate {
        if (!(expectedTokens >= 0) || Double.isInfinite(expectedTokens)) {
            throw new IllegalArgumentException("expectedTokens: " + expectedTokens + " (expected: finite, >= 0)");
        }
    }

    /** An estimate that is only a token count; its class follows from the count. */
    public static Estimate ofTokens(double expectedTokens) {
        return new Estimate(expectedTokens, LengthClass.of(expectedTokens), Double.NaN);
    }

    /** The same estimate at another token count, its class following the count; the class probability kept. */
    public Estimate withTokens(double tokens) {
        return tokens == expectedTokens ? this : new Estimate(tokens, LengthClass.of(tokens), longProbability);
    }

    /**
     * The same estimate bounded by the request's own output limit: a request that may generate at
     * most {@code maxTokens} tokens cannot take longer than that, whatever the prompt suggests.
     */
    public Estimate cappedAt(int maxTokens) {
        if (expectedTokens <= maxTokens) {
            return this;
        }
        return new Estimate(maxTokens, LengthClass.of(maxTokens), longProbability);
    }
}
