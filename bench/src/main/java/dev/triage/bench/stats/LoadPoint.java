package dev.triage.bench.stats;

import java.util.List;

/**
 * An experiment's rows at one utilisation ρ: one point of each latency-against-load curve.
 *
 * @param rho the offered load, arrival rate × mean service time / slots
 */
public record LoadPoint(double rho, List<SummaryRow> rows) {

    public LoadPoint {
        rows = List.copyOf(rows);
    }
}
