package dev.triage.proxy.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads samples out of Prometheus text exposition, for assertions on {@code /metrics}. */
public final class PrometheusText {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private PrometheusText() {}

    /**
     * The sum of every sample named {@code name} whose labels include {@code labels}; 0 when none
     * matches, NaN when a matching sample is NaN.
     */
    public static double sum(String text, String name, Map<String, String> labels) {
        double total = 0;
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.find() || !sample.group(1).equals(name)) {
                continue;
            }
            if (labels(sample).entrySet().containsAll(labels.entrySet())) {
                total += Double.parseDouble(sample.group(4));
            }
        }
        return total;
    }

    /** Every sample name in the text, with the label sets of its samples in order. */
    public static Map<String, List<Map<String, String>>> series(String text) {
        Map<String, List<Map<String, String>>> series = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (sample.find()) {
                series.computeIfAbsent(sample.group(1), name -> new ArrayList<>()).add(labels(sample));
            }
        }
        return series;
    }

    private static Map<String, String> labels(Matcher sample) {
        Map<String, String> found = new HashMap<>();
        if (sample.group(3) != null) {
            Matcher label = LABEL.matcher(sample.group(3));
            while (label.find()) {
                found.put(label.group(1), label.group(2));
            }
        }
        return found;
    }

    /** True when some sample is named {@code name}. */
    public static boolean has(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                return true;
            }
        }
        return false;
    }
}
