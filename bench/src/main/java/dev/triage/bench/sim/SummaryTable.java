package dev.triage.bench.sim;

import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.SummaryRow;
import java.util.List;
import java.util.Locale;

/** Experiment rows as a markdown table, for the terminal and the reports: each statistic as mean ± sd over runs. */
public final class SummaryTable {

    private SummaryTable() {}

    public static String markdown(List<SummaryRow> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| policy | class | jobs/run | mean (s) | P50 (s) | P90 (s) | P95 (s) | P99 (s) | τ fired/run |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (SummaryRow row : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %.0f", row.policy(), row.jobClass(), row.requests()));
            for (Statistic statistic : Statistic.values()) {
                md.append(String.format(Locale.ROOT, " | %.2f ± %.2f", row.seconds(statistic), row.sd(statistic)));
            }
            md.append(String.format(Locale.ROOT, " | %.1f |%n", row.tauFired()));
        }
        return md.toString();
    }
}
