package dev.triage.model.training;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A figure over the seeds of a comparison: its mean, with its lowest and highest when more than one
 * seed has it, since one seed's figure moves by about as much as the choices it compares.
 */
record SeedSpread(double mean, double lowest, double highest, boolean ranged) {

    /** The spread of the seeds' values; null when none has the figure (a null value is a seed without it). */
    static SeedSpread of(List<Double> values) {
        List<Double> known = values.stream().filter(Objects::nonNull).toList();
        if (known.isEmpty()) {
            return null;
        }
        return new SeedSpread(known.stream().mapToDouble(Double::doubleValue).average().orElseThrow(),
                known.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                known.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), known.size() > 1);
    }

    /** "mean (lowest–highest)", each written by {@code format}; the mean alone for one seed. */
    String format(Function<Double, String> format) {
        return ranged ? format.apply(mean) + " (" + format.apply(lowest) + "–" + format.apply(highest) + ")" : format.apply(mean);
    }
}
