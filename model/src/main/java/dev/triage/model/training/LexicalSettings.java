package dev.triage.model.training;

import java.util.Locale;

/**
 * How the {@code lexical} tree ensemble is trained.
 *
 * @param objective what the trees fit
 * @param boosting rounds, depth, learning rate and seed, as for the classifier
 */
public record LexicalSettings(Objective objective, TrainingSettings boosting) {

    /** Chosen on the validation split (see {@code docs/lexical-evaluation.md}). */
    public static final LexicalSettings DEFAULTS = new LexicalSettings(Objective.REGRESSION, new TrainingSettings(200, 4, 0.05, 42));

    /** What the trees are fitted to; both compare answers only with answers by the same model. */
    public enum Objective {
        /** Squared error on ln(1 + answer tokens) less the mean of that over the answering model's answers. */
        REGRESSION,
        /** XGBoost's {@code rank:pairwise}, each answering model's answers one query group. */
        PAIRWISE;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Objective of(String id) {
            for (Objective objective : values()) {
                if (objective.id().equals(id)) {
                    return objective;
                }
            }
            throw new IllegalArgumentException("--objective: " + id + " (expected: regression or pairwise)");
        }
    }
}
