package dev.triage.model.evaluation;

import dev.triage.model.Estimate;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import java.util.List;

/**
 * A reference for reading the figures, not an estimator: how well a prompt could be ranked by
 * someone who knew how long the <em>other</em> target models' answers to it are. Each answer is
 * scored with the mean length of the other models' answers to the same prompt, so the figure says
 * how much of an answer's length the prompt decides at all — an upper bound of sorts for any
 * predictor that reads only the prompt. Answers to prompts that no other model answered are left
 * out.
 */
public final class PromptCeiling {

    private PromptCeiling() {}

    public static Figures figures(List<LabeledPrompt> prompts) {
        return Evaluation.evaluate(prompts, (index, answer) -> {
            List<PromptAnswer> answers = prompts.get(index).answers();
            if (answers.size() < 2) {
                return null;
            }
            double others = answers.stream().filter(a -> a != answer).mapToInt(PromptAnswer::answerTokens).average()
                    .orElseThrow();
            return Estimate.ofTokens(others);
        });
    }
}
