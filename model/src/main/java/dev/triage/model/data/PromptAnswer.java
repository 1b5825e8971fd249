package dev.triage.model.data;

import dev.triage.features.Prompt;
import java.util.Objects;

/**
 * One answer a model gave to a prompt, in the form every source is normalized to.
 *
 * @param request the request as a user would send it: its text (for instruction sets: instruction, a
 *     blank line, then the input when there is one) and, for a later turn of a conversation, its shape
 * @param answerTokens the answer's length in cl100k tokens ({@link AnswerTokens})
 * @param source the collection it comes from
 * @param answeringModel the model that wrote the answer, as its source names it
 */
public record PromptAnswer(Prompt request, int answerTokens, PromptSource source, String answeringModel) {

    public PromptAnswer {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(answeringModel, "answeringModel");
        if (answerTokens < 0) {
            throw new IllegalArgumentException("answerTokens: " + answerTokens + " (expected: >= 0)");
        }
    }

    /** An answer to a single-message request. */
    public PromptAnswer(String prompt, int answerTokens, PromptSource source, String answeringModel) {
        this(new Prompt(prompt), answerTokens, source, answeringModel);
    }

    /**
     * The answering model as its answers are grouped into one test set, within its source
     * ({@code alpaca_eval / gpt4}): one model's answers in two sources are to other prompts, with other
     * settings. Ranking pairs are drawn within one such set.
     */
    public String modelKey() {
        return source.id() + " / " + answeringModel;
    }

    /** The prompt's text. */
    public String prompt() {
        return request.text();
    }
}
