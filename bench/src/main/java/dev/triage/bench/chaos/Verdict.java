package dev.triage.bench.chaos;

/**
 * What one operation saw, and whether that is what Triage must do.
 *
 * @param seen a short account, the same for operations that saw the same ("200 complete", "502")
 */
record Verdict(boolean expected, String seen) {

    static Verdict as(String seen) {
        return new Verdict(true, seen);
    }

    static Verdict not(String seen) {
        return new Verdict(false, seen);
    }

    static Verdict of(boolean expected, String seen) {
        return new Verdict(expected, seen);
    }
}
