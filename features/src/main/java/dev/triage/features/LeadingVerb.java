package dev.triage.features;

import java.util.Locale;

/**
 * The 13 instruction-verb categories of Clairvoyant's one-hot feature group: the word a prompt opens
 * with says what kind of answer it asks for ("what" a fact, "write" a text, "implement" code). Every
 * other opening word, and every prompt in a language other than English, is {@link #OTHER}. The
 * declaration order is the order of the one-hot features in {@link LexicalFeatures#NAMES}.
 */
public enum LeadingVerb {
    WHAT,
    WRITE,
    EXPLAIN,
    SUMMARIZE,
    HOW,
    LIST,
    IMPLEMENT,
    COMPARE,
    DESCRIBE,
    GENERATE,
    WHY,
    DEFINE,
    OTHER;

    /** The feature name of this category's one-hot column, e.g. {@code verb_what}. */
    public String featureName() {
        return "verb_" + name().toLowerCase(Locale.ROOT);
    }
}
