package dev.triage.model.training;

import java.util.Arrays;
import java.util.Locale;

/** The learning-to-rank objectives the ranker's head can be trained with, as PARS compares them. */
public enum RankingObjective {
    /** PARS: margin ranking loss on pairs of prompts whose answers differ in length by at least δ. */
    PAIRWISE,
    /** Regression: L1 loss between the score and the log of the answer length. */
    POINTWISE,
    /** ListMLE on lists of prompts ordered by answer length. */
    LISTWISE;

    /** The name in metadata and on the command line. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RankingObjective of(String id) {
        for (RankingObjective objective : values()) {
            if (objective.id().equals(id)) {
                return objective;
            }
        }
        throw new IllegalArgumentException("--objective: " + id + " (expected one of "
                + String.join(", ", Arrays.stream(values()).map(RankingObjective::id).toList()) + ")");
    }
}
