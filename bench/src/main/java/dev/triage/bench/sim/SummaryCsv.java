package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.SummaryRow;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes experiment rows as CSV: {@code policy,class,requests,mean_s,p50_s,p90_s,p95_s,p99_s}, the
 * same statistics' standard deviations over seeds ({@code mean_sd_s}, ...), and {@code tau_fired}
 * (jobs sent by the starvation timeout per run). {@link LoadSweep#writeCsv} writes the same columns
 * after a {@code rho} column.
 */
public final class SummaryCsv {

    private SummaryCsv() {}

    public static void write(Path file, List<SummaryRow> rows) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writer.write(String.join(",", header()) + "\n");
            for (SummaryRow row : rows) {
                writer.write(String.join(",", cells(row)) + "\n");
            }
        }
    }

    static List<String> header() {
        List<String> header = new ArrayList<>(List.of("policy", "class", "requests"));
        for (Statistic statistic : Statistic.values()) {
            header.add(statistic.label() + "_s");
        }
        for (Statistic statistic : Statistic.values()) {
            header.add(statistic.label() + "_sd_s");
        }
        header.add("tau_fired");
        return header;
    }

    static List<String> cells(SummaryRow row) {
        List<String> cells = new ArrayList<>(List.of(row.policy(), row.jobClass(), number(row.requests())));
        for (Statistic statistic : Statistic.values()) {
            cells.add(number(row.seconds(statistic)));
        }
        for (Statistic statistic : Statistic.values()) {
            cells.add(number(row.sd(statistic)));
        }
        cells.add(number(row.tauFired()));
        return cells;
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.4f", value);
    }
}
