package dev.triage.model;

/**
 * The three answer-length classes of Clairvoyant: short below 200 tokens, medium 200 to 799, long
 * from 800. The bounds are defined here and nowhere else; training labels, evaluation and metrics
 * labels all read them from this enum.
 */
public enum LengthClass {
    SHORT,
    MEDIUM,
    LONG;

    /** Answers shorter than this many tokens are short. */
    public static final int MEDIUM_FROM = 200;
    /** Answers of at least this many tokens are long. */
    public static final int LONG_FROM = 800;

    public static LengthClass of(double tokens) {
        if (tokens < MEDIUM_FROM) {
            return SHORT;
        }
        return tokens < LONG_FROM ? MEDIUM : LONG;
    }

    /** Lower-case name, as used in metrics labels and reports. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
