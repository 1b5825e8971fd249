package dev.triage.bench.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The first few instances of each kind of problem a run met, for its report; the rest are only counted elsewhere. */
final class Examples {

    private final int perKind;
    private final Map<String, List<String>> byKind = new LinkedHashMap<>();

    Examples(int perKind) {
        this.perKind = perKind;
    }

    synchronized void add(String kind, String example) {
        List<String> kept = byKind.computeIfAbsent(kind, k -> new ArrayList<>());
        if (kept.size() < perKind) {
            kept.add(example);
        }
    }

    synchronized Map<String, List<String>> snapshot() {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        byKind.forEach((kind, kept) -> copy.put(kind, List.copyOf(kept)));
        return copy;
    }
}
