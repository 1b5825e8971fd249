package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triage.bench.stats.LatencyStats.Statistic;
import dev.triage.bench.stats.MeanSd;
import dev.triage.bench.stats.SummaryRow;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryTableTest {

    @Test
    void eachStatisticIsItsMeanAndSpreadOverRuns() {
        Map<Statistic, MeanSd> sojourn = new EnumMap<>(Statistic.class);
        for (Statistic statistic : Statistic.values()) {
            sojourn.put(statistic, MeanSd.of(new double[] {1.0, 3.0}));
        }
        String table = SummaryTable.markdown(List.of(new SummaryRow("sjf", "short", 35, sojourn, 0)));

        assertEquals("| sjf | short | 35 | 2.00 ± 1.41 | 2.00 ± 1.41 | 2.00 ± 1.41 | 2.00 ± 1.41 | 2.00 ± 1.41 | 0.0 |",
                table.lines().toList().get(2));
    }
}
