package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.stats.LatencyStats;
import dev.triage.bench.stats.SummaryRow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClairvoyantTable9Test {

    @Test
    void writesOneRowPerPolicyAndClassWithThePercentileColumns(@TempDir Path out) throws Exception {
        new ClairvoyantTable9(300, 2).run(out);

        List<String> lines = Files.readAllLines(out.resolve("summary.csv"));
        List<String> header = List.of(lines.get(0).split(","));
        assertTrue(header.containsAll(List.of("policy", "class", "p50_s", "p95_s")), header.toString());
        assertEquals(11, lines.size(), "header and 5 policies x 2 classes");
        for (String policy : List.of("fcfs", "sjf-tau1", "sjf-tau3", "sjf-tau5", "sjf")) {
            for (String jobClass : List.of("short", "long")) {
                String prefix = policy + "," + jobClass + ",";
                assertTrue(lines.stream().anyMatch(line -> line.startsWith(prefix)), "no row " + prefix);
            }
        }
        String markdown = Files.readString(out.resolve("table9.md"));
        assertTrue(markdown.contains("/ 9.70") && markdown.contains("/ 79.32"), "the paper's numbers stand beside ours");
        assertTrue(Files.exists(out.resolve("summary-tau-from-sojourn.csv")));
    }

    @Test
    void tauFiresOnlyWhereThereIsATau() {
        List<SummaryRow> rows = new Experiment(ClairvoyantTable9.variants(3.5), SimulatedBackend.slots(1), List.of(0L),
                new ClairvoyantTable9(2_000, 1)::workload).run();
        assertEquals(0, ClairvoyantTable9.find(rows, "fcfs", "all").tauFired());
        assertEquals(0, ClairvoyantTable9.find(rows, "sjf", "all").tauFired());
        assertTrue(ClairvoyantTable9.find(rows, "sjf-tau3", "all").tauFired() > 0);
        assertTrue(ClairvoyantTable9.find(rows, "sjf", "short").seconds(LatencyStats.Statistic.P50)
                < ClairvoyantTable9.find(rows, "fcfs", "short").seconds(LatencyStats.Statistic.P50));
    }
}
