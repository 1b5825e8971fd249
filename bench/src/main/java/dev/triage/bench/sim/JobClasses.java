package dev.triage.bench.sim;

import dev.triage.model.LengthClass;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The order in which reports list job classes: the length classes first, shortest first, then others. */
final class JobClasses {

    /** The pseudo-class of every job together. */
    static final String ALL = "all";

    private JobClasses() {}

    static List<String> ordered(List<String> classes) {
        List<String> sorted = new ArrayList<>(classes);
        sorted.sort(Comparator.comparingInt(JobClasses::rank).thenComparing(Comparator.naturalOrder()));
        return sorted;
    }

    private static int rank(String jobClass) {
        for (LengthClass lengthClass : LengthClass.values()) {
            if (lengthClass.label().equals(jobClass)) {
                return lengthClass.ordinal();
            }
        }
        return ALL.equals(jobClass) ? Integer.MAX_VALUE : LengthClass.values().length;
    }
}
