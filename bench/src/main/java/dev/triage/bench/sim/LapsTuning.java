package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.LapsSettings;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chooses {@code laps} settings on a set of workloads: coordinate descent over {@link LapsStudy#GRID},
 * minimising the mean sojourn time over the non-preemptive oracle SJF's on the same workload, averaged
 * over the workloads and their seeds. Every setting tried is remembered with its objective.
 */
final class LapsTuning {

    private final List<LapsStudy.Case> cases;
    private final Map<LapsStudy.Case, double[]> oracleMeans = new LinkedHashMap<>();
    private final Map<String, Double> scores = new LinkedHashMap<>();

    LapsTuning(List<LapsStudy.Case> cases) {
        this.cases = List.copyOf(cases);
    }

    /** Coordinate descent from {@code start}, twice round {@link LapsStudy#GRID}. */
    LapsSettings tune(LapsSettings start) {
        LapsSettings best = start;
        double bestScore = score(best);
        for (int round = 0; round < 2; round++) {
            for (Map.Entry<String, List<String>> setting : LapsStudy.GRID) {
                for (String value : setting.getValue()) {
                    LapsSettings candidate;
                    try {
                        candidate = best.with(setting.getKey() + "=" + value);
                    } catch (IllegalArgumentException e) {
                        continue; // more preemptive levels than levels
                    }
                    double candidateScore = score(candidate);
                    if (candidateScore < bestScore - 1e-9) {
                        best = candidate;
                        bestScore = candidateScore;
                    }
                }
            }
        }
        return best;
    }

    /** The objective of {@code laps} with these settings. */
    double score(LapsSettings settings) {
        return scores.computeIfAbsent(settings.describe(), key -> score(PolicyVariant.parse("laps", Duration.ZERO, settings)));
    }

    /** The mean sojourn over oracle SJF's, averaged over the tuning cases and their seeds. */
    double score(PolicyVariant variant) {
        double sum = 0;
        int count = 0;
        for (LapsStudy.Case c : cases) {
            double[] oracle = oracleMeans(c);
            for (int i = 0; i < c.runs().size(); i++) {
                sum += Simulation.run(c.runs().get(i), variant, LapsStudy.BACKEND).meanSojournSeconds() / oracle[i];
                count++;
            }
        }
        return sum / count;
    }

    private double[] oracleMeans(LapsStudy.Case c) {
        return oracleMeans.computeIfAbsent(c, k -> c.runs().stream()
                .mapToDouble(workload -> Simulation.run(workload, PolicyVariant.parse("oracle-sjf", Duration.ZERO), LapsStudy.BACKEND)
                        .meanSojournSeconds())
                .toArray());
    }

    /** Every setting tried, with its objective, in the order tried. */
    void writeCsv(Path file) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writer.write("settings,objective\n");
            for (Map.Entry<String, Double> entry : scores.entrySet()) {
                writer.write("\"" + entry.getKey() + "\"," + String.format(Locale.ROOT, "%.5f", entry.getValue()) + "\n");
            }
        }
    }
}
