package dev.triage.model.evaluation;

/**
 * What one estimator achieved on one set of test answers (see {@link Evaluation}). A figure that
 * cannot be computed (no short/long pair, a constant score) is null, which JSON and the reports
 * show as such rather than as a number.
 *
 * @param prompts distinct prompts scored
 * @param answers answers compared (each target model's answer to each prompt)
 * @param shortAnswers answers below 200 tokens
 * @param longAnswers answers of 800 tokens or more
 * @param pairs (short, long) pairs of Algorithm 1, within each answering model
 * @param rankingAccuracy Algorithm 1 on the estimator's ranking score ({@link Evaluation#rankingScore})
 * @param rankingAccuracyByExpectedTokens Algorithm 1 on expected tokens, the key Triage's SJF sorts by
 * @param classAccuracy share of answers whose length class the estimate names
 * @param kendallTauB Kendall's τ_b of expected tokens and true length, per answering model, averaged
 *     with each model weighted by its number of answers
 */
public record Figures(int prompts, int answers, int shortAnswers, int longAnswers, long pairs,
        Double rankingAccuracy, Double rankingAccuracyByExpectedTokens, Double classAccuracy, Double kendallTauB) {

    static Double orNull(double value) {
        return Double.isFinite(value) ? value : null;
    }
}
