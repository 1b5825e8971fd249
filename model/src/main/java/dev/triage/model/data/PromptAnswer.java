package dev.triage.model.data;

import java.util.Objects;

/**
 * One answer a model gave to a prompt, in the form every source is normalized to.
 *
 * @param prompt the prompt as a user would send it (for instruction sets: instruction, a blank line,
 *     then the input when there is one)
 * @param answerTokens the answer's length in cl100k tokens ({@link AnswerTokens})
 * @param source the collection it comes from
 * @param answeringModel the model that wrote the answer, as its source names it
 */
public record PromptAnswer(String prompt, int answerTokens, PromptSource source, String answeringModel) {

    public PromptAnswer {
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(answeringModel, "answeringModel");
        if (answerTokens < 0) {
            throw new IllegalArgumentException("answerTokens: " + answerTokens + " (expected: >= 0)");
        }
    }
}
