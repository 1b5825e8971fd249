package dev.triage.model.training;

import java.util.Arrays;

/**
 * An answering model's style, told by its answers' median length: the long-answer style (reasoning
 * models, and chat models tuned to say more) or the chat style. A handful of models write in the
 * long style, so drawn in proportion to their answers they hardly count in training; the report
 * gives their figures apart.
 */
final class AnswerStyle {

    /** Models whose median answer is at least this long (in tokens) answer in the long-answer style. */
    static final int LONG_STYLE_MEDIAN = 600;

    private AnswerStyle() {}

    static boolean isLong(int[] answerTokens) {
        int[] sorted = answerTokens.clone();
        Arrays.sort(sorted);
        return sorted.length > 0 && sorted[sorted.length / 2] >= LONG_STYLE_MEDIAN;
    }
}
