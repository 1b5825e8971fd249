package dev.triage.model.training;

import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.ranker.ScoreCalibration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Fits a ranker's {@link ScoreCalibration}: the weighted isotonic regression of answer length on
 * score (pool-adjacent-violators), whose blocks become the calibration's knots — each block's
 * weighted mean score and mean length. Adjacent blocks of a fitted isotonic regression have
 * strictly increasing means, so the knots are strictly increasing in both coordinates. The same
 * regression's fitted values ({@link #fitted}) measure how near any monotone map can come to data.
 */
public final class IsotonicCalibration {

    private IsotonicCalibration() {}

    /**
     * The calibration of a model's {@code scores} of {@code prompts}: each prompt weighs one, with
     * the mean length of its answers, so that a prompt thirty models answered counts no more than
     * one that one model did.
     */
    static ScoreCalibration fitPrompts(float[] scores, List<LabeledPrompt> prompts) {
        if (scores.length != prompts.size()) {
            throw new IllegalArgumentException(scores.length + " scores for " + prompts.size() + " prompts");
        }
        double[] asDoubles = new double[scores.length];
        double[] tokens = new double[prompts.size()];
        double[] weights = new double[prompts.size()];
        for (int i = 0; i < prompts.size(); i++) {
            asDoubles[i] = scores[i];
            tokens[i] = Math.max(1, prompts.get(i).answers().stream().mapToInt(PromptAnswer::answerTokens).average().orElseThrow());
            weights[i] = 1;
        }
        return fit(asDoubles, tokens, weights);
    }

    /**
     * @param scores the ranker's score of each example
     * @param tokens each example's answer length (for a prompt: its answers' mean), at least 1
     * @param weights each example's weight, > 0
     * @throws IllegalArgumentException when the scores take fewer than two distinct values or an
     *     input is out of range
     */
    static ScoreCalibration fit(double[] scores, double[] tokens, double[] weights) {
        int n = scores.length;
        if (tokens.length != n || weights.length != n) {
            throw new IllegalArgumentException(n + " scores, " + tokens.length + " lengths, " + weights.length
                    + " weights (expected: as many of each)");
        }
        for (int i = 0; i < n; i++) {
            if (!Double.isFinite(scores[i]) || !(tokens[i] >= 1) || Double.isInfinite(tokens[i]) || !(weights[i] > 0)) {
                throw new IllegalArgumentException("example " + i + ": score " + scores[i] + ", tokens " + tokens[i]
                        + ", weight " + weights[i] + " (expected: finite score, tokens >= 1, weight > 0)");
            }
        }
        List<Block> blocks = pool(scores, tokens, weights, sortedOrder(scores));
        if (blocks.size() == 1) {
            return flat(blocks.get(0), scores);
        }
        List<Double> knotScores = new ArrayList<>(blocks.size());
        List<Double> knotTokens = new ArrayList<>(blocks.size());
        for (Block block : blocks) {
            knotScores.add(block.meanScore());
            knotTokens.add(block.meanValue());
        }
        return new ScoreCalibration(knotScores, knotTokens);
    }

    /**
     * The least-squares isotonic regression of {@code values} on {@code scores}, unweighted: the
     * value the best non-decreasing function of the score takes at each example, in the examples'
     * order. Equal scores get one value.
     */
    public static double[] fitted(double[] scores, double[] values) {
        if (values.length != scores.length) {
            throw new IllegalArgumentException(scores.length + " scores, " + values.length + " values (expected: as many of each)");
        }
        for (int i = 0; i < scores.length; i++) {
            if (!Double.isFinite(scores[i]) || !Double.isFinite(values[i])) {
                throw new IllegalArgumentException("example " + i + ": score " + scores[i] + ", value " + values[i] + " (expected: finite)");
            }
        }
        double[] weights = new double[scores.length];
        Arrays.fill(weights, 1);
        Integer[] order = sortedOrder(scores);
        double[] fitted = new double[scores.length];
        int k = 0;
        for (Block block : pool(scores, values, weights, order)) {
            for (int end = k + block.count; k < end; k++) {
                fitted[order[k]] = block.meanValue();
            }
        }
        return fitted;
    }

    private static Integer[] sortedOrder(double[] scores) {
        Integer[] order = new Integer[scores.length];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingDouble(i -> scores[i]));
        return order;
    }

    /** Pool-adjacent-violators over the examples in {@code order} (ascending score). */
    private static List<Block> pool(double[] scores, double[] values, double[] weights, Integer[] order) {
        List<Block> blocks = new ArrayList<>();
        for (int i : order) {
            Block last = blocks.isEmpty() ? null : blocks.get(blocks.size() - 1);
            // Equal scores must share a knot: the calibration is a function of the score.
            if (last != null && last.maxScore == scores[i]) {
                last.add(scores[i], values[i], weights[i]);
            } else {
                blocks.add(new Block(scores[i], values[i], weights[i]));
            }
            while (blocks.size() >= 2 && blocks.get(blocks.size() - 2).meanValue() >= blocks.get(blocks.size() - 1).meanValue()) {
                Block merged = blocks.remove(blocks.size() - 1);
                blocks.get(blocks.size() - 1).absorb(merged);
            }
        }
        return blocks;
    }

    /**
     * When the scores do not order the lengths at all, the isotonic fit is one constant: the
     * calibration is then the nearly flat line from the lowest to the highest score through the
     * mean, which keeps the ranker's order (a flat map would tie every prompt).
     */
    private static ScoreCalibration flat(Block only, double[] scores) {
        double low = Arrays.stream(scores).min().orElseThrow();
        double high = Arrays.stream(scores).max().orElseThrow();
        if (!(high > low)) {
            throw new IllegalArgumentException("scores: all " + low + " (expected: at least two distinct values to calibrate)");
        }
        double mean = only.meanValue();
        return new ScoreCalibration(List.of(low, high), List.of(mean, Math.nextUp(mean) + 1e-6 * mean));
    }

    /** A run of adjacent examples pooled into one value. */
    private static final class Block {
        int count;
        double weight;
        double weightedScore;
        double weightedValue;
        double maxScore;

        Block(double score, double value, double weight) {
            add(score, value, weight);
        }

        void add(double score, double value, double exampleWeight) {
            count++;
            weight += exampleWeight;
            weightedScore += exampleWeight * score;
            weightedValue += exampleWeight * value;
            maxScore = score;
        }

        void absorb(Block next) {
            count += next.count;
            weight += next.weight;
            weightedScore += next.weightedScore;
            weightedValue += next.weightedValue;
            maxScore = next.maxScore;
        }

        double meanScore() {
            return weightedScore / weight;
        }

        double meanValue() {
            return weightedValue / weight;
        }
    }
}
