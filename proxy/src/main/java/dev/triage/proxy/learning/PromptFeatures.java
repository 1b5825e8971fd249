package dev.triage.proxy.learning;

import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import java.util.Optional;

/**
 * A request's {@link RequestFeatures}, computed the first time they are asked for and kept: a waiting
 * request is costed again whenever the learner moves, and while the ranking adaptation serves each
 * costing reads the features, which take microseconds to extract.
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
