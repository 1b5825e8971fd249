package dev.triage.features;

import java.util.Optional;

/**
 * A request's prompt and its {@link RequestFeatures}, computed the first time they are asked for and
 * kept: a waiting request may be costed again many times while it waits (each costing may read the
 * features), and its end reads them again for learning and the feedback log. They take microseconds
 * to extract, once.
 */
public final class PromptFeatures {

    /** A request without a prompt (an audio upload). */
    public static final PromptFeatures NONE = new PromptFeatures(Optional.empty());

    private final Optional<Prompt> prompt;
    /** Null until first asked for; written at most a few times, to equal values, by racing readers. */
    private volatile float[] features;

    public PromptFeatures(Optional<Prompt> prompt) {
        this.prompt = prompt;
    }

    public static PromptFeatures of(Prompt prompt) {
        return new PromptFeatures(Optional.of(prompt));
    }

    /** The prompt, or empty when the request has none. */
    public Optional<Prompt> prompt() {
        return prompt;
    }

    /** The features, or empty when the request has no prompt. */
    public Optional<float[]> get() {
        if (prompt.isEmpty()) {
            return Optional.empty();
        }
        float[] computed = features;
        if (computed == null) {
            computed = RequestFeatures.of(prompt.get());
            features = computed;
        }
        return Optional.of(computed);
    }
}
