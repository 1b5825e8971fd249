package dev.triage.model.data;

import dev.triage.features.Prompt;
import java.util.List;
import java.util.Objects;

/**
 * A distinct prompt of one source with the target models' answers to it: the unit that the split,
 * training rows and evaluation are built from. Each answer is a labeled example of its own (its
 * length, by the model that wrote it); the prompt is scored once for all of them.
 *
 * @param prompt the prompt text (as first seen)
 * @param source where it comes from
 * @param split the part of the data it belongs to ({@link PromptSplit#of})
 * @param answers the target models' answers, at least one, at most one per model
 */
public record LabeledPrompt(String prompt, PromptSource source, PromptSplit split, List<PromptAnswer> answers) {

    public LabeledPrompt {
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(split, "split");
        answers = List.copyOf(answers);
        if (answers.isEmpty()) {
            throw new IllegalArgumentException("answers: empty (expected: at least one)");
        }
    }

    /** The request as an estimator reads it: the first answer's, whose text is {@link #prompt}. */
    public Prompt request() {
        return answers.get(0).request();
    }
}
