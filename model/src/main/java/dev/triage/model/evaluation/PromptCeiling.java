package dev.triage.model.evaluation;

import dev.triage.model.Estimate;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import java.util.List;
import java.util.OptionalDouble;

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
            OptionalDouble others = othersMean(prompts.get(index), answer);
            return others.isPresent() ? Estimate.ofTokens(others.getAsDouble()) : null;
        });
    }

    /** The mean length in tokens of the answers to {@code prompt} other than {@code own}; empty where there is none. */
    public static OptionalDouble othersMean(LabeledPrompt prompt, PromptAnswer own) {
        return prompt.answers().stream().filter(a -> a != own).mapToInt(PromptAnswer::answerTokens).average();
    }
}
