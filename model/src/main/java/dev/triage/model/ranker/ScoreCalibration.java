package dev.triage.model.ranker;

import dev.triage.model.Estimate;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps a ranker's score to expected answer tokens, so that HRRN and the starvation timeout, which
 * work in seconds, can use a ranking model. The map is strictly increasing: it never changes the
 * order the ranker puts prompts in, only puts that order on a token scale.
 *
 * <p>It is a list of knots (score, tokens), both strictly increasing — the blocks of an isotonic
 * regression of answer length on score, fitted on held-out prompts. Between knots, the map is
 * linear in log tokens; beyond the outer knots it goes on with the slope of the line from the first
 * knot to the last, so scores outside the fitted range still keep their order: below the first
 * knot the estimate falls towards 0 without reaching it, and only above {@link #MAX_TOKENS} is it
 * cut. Log space keeps every value positive and matches how answer lengths spread (over orders of
 * magnitude).
 *
 * @param scores knot scores, at least two, strictly increasing
 * @param tokens the expected answer tokens at each knot, strictly increasing, at least 1
 */
public record ScoreCalibration(List<Double> scores, List<Double> tokens) {

    /** No estimate is taken past this, whatever the score: a chat answer of a million tokens is not a thing. */
    public static final double MAX_TOKENS = 1_000_000;

    public ScoreCalibration {
        scores = List.copyOf(scores);
        tokens = List.copyOf(tokens);
        String problem = problem(scores, tokens);
        if (problem != null) {
            throw new IllegalArgumentException("calibration: " + problem);
        }
    }

    /**
     * Expected answer tokens for a score: finite, above 0, at most {@link #MAX_TOKENS}; strictly
     * increasing in the score below that cap, so that no two scores the model told apart tie.
     */
    public double tokens(double score) {
        int last = scores.size() - 1;
        if (score <= scores.get(0)) {
            return extrapolated(score, 0);
        }
        if (score >= scores.get(last)) {
            return extrapolated(score, last);
        }
        int upper = 1;
        while (scores.get(upper) < score) {
            upper++;
        }
        double x0 = scores.get(upper - 1);
        double x1 = scores.get(upper);
        double y0 = Math.log(tokens.get(upper - 1));
        double y1 = Math.log(tokens.get(upper));
        return Math.exp(y0 + (y1 - y0) * (score - x0) / (x1 - x0));
    }

    /** The estimate of each score; a score that is not finite is a broken model. */
    public List<Estimate> estimates(float[] scores) {
        List<Estimate> estimates = new ArrayList<>(scores.length);
        for (float score : scores) {
            if (!Float.isFinite(score)) {
                throw new IllegalStateException("the model scored " + score + " (expected: a finite score)");
            }
            estimates.add(Estimate.ofTokens(tokens(score)));
        }
        return estimates;
    }

    private double extrapolated(double score, int knot) {
        int last = scores.size() - 1;
        double slope = (Math.log(tokens.get(last)) - Math.log(tokens.get(0))) / (scores.get(last) - scores.get(0));
        double logTokens = Math.log(tokens.get(knot)) + slope * (score - scores.get(knot));
        return Math.min(MAX_TOKENS, Math.exp(logTokens));
    }

    /** What makes the knots unusable, or null. */
    static String problem(List<Double> scores, List<Double> tokens) {
        if (scores.size() < 2 || scores.size() != tokens.size()) {
            return scores.size() + " scores and " + tokens.size() + " token counts (expected: the same number, at least 2)";
        }
        for (int i = 0; i < scores.size(); i++) {
            double score = scores.get(i);
            double count = tokens.get(i);
            if (!Double.isFinite(score) || !Double.isFinite(count) || count < 1 || count > MAX_TOKENS) {
                return "knot " + i + " (" + score + ", " + count + ") (expected: a finite score, 1 to " + MAX_TOKENS + " tokens)";
            }
            if (i > 0 && (score <= scores.get(i - 1) || count <= tokens.get(i - 1))) {
                return "knot " + i + " (" + score + ", " + count + ") after (" + scores.get(i - 1) + ", " + tokens.get(i - 1)
                        + ") (expected: scores and tokens strictly increasing)";
            }
        }
        return null;
    }
}
