package dev.triage.model.training;

import dev.triage.model.evaluation.Figures;
import java.util.Locale;

/** How the evaluation reports write a figure in a table's cell: "n/a" where there is none. */
final class ReportCells {

    private ReportCells() {}

    /** A share as a percentage with one decimal: 0.9012 → "90.1%". */
    static String percent(Double value) {
        return value == null ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * value);
    }

    /** A figure such as Kendall's τ_b with three decimals. */
    static String decimal(Double value) {
        return value == null ? "n/a" : String.format(Locale.ROOT, "%.3f", value);
    }

    /** Kendall's τ_b, then the ranking accuracy: "0.391 · 90.1%". */
    static String tauAndAccuracy(Figures figures) {
        return decimal(figures.kendallTauB()) + " · " + percent(figures.rankingAccuracy());
    }
}
