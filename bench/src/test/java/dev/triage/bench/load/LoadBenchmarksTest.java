package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.sim.LatencyStats.Statistic;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.config.ServiceTimeModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The load generator over real HTTP, through Triage and directly, against the replay backend. */
class LoadBenchmarksTest {

    private static List<WorkloadEntry> workload() {
        List<WorkloadEntry> entries = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            entries.add(new WorkloadEntry("short question " + i, 5 + i, "short", "test"));
            entries.add(new WorkloadEntry("long essay " + i, 600 + 10 * i, "long", "test"));
        }
        return entries;
    }

    @Test
    void anOracleBurstServesShortRequestsFarSoonerThanFcfs() throws Exception {
        List<LoadVariant> variants = List.of(LoadVariant.parse("direct", Duration.ZERO), LoadVariant.parse("fcfs", Duration.ZERO),
                LoadVariant.parse("oracle-sjf", Duration.ZERO));
        BurstBenchmark.Result result = BurstBenchmark.run(new BurstBenchmark.Settings(workload(), variants, 2,
                new ServiceTimeModel(0.002, 0.0005), 1, List.of()));
        double fcfs = result.seconds("fcfs", "short", Statistic.P50).orElseThrow();
        double oracle = result.seconds("oracle-sjf", "short", Statistic.P50).orElseThrow();
        // Generous: the burst's arrivals spread over tens of milliseconds, and the first to arrive runs.
        assertTrue(oracle < fcfs / 2, "oracle short P50 " + oracle + " s vs fcfs " + fcfs + " s");
        double direct = result.seconds("direct", "short", Statistic.P50).orElseThrow();
        assertTrue(direct > oracle * 2, "the backend alone is first-come-first-served: " + direct);
        double longOracle = result.seconds("oracle-sjf", "long", Statistic.P95).orElseThrow();
        double longFcfs = result.seconds("fcfs", "long", Statistic.P95).orElseThrow();
        assertTrue(longOracle < longFcfs * 1.25, "in a burst the long ones pay little: " + longOracle + " vs " + longFcfs);
        assertEquals(8, result.endToEnd().stream().filter(r -> r.policy().equals("fcfs") && r.jobClass().equals("short"))
                .findFirst().orElseThrow().requests());
        assertTrue(result.firstToken().stream().allMatch(r -> r.seconds(Statistic.P50) > 0));
        assertTrue(result.findings().contains("oracle-sjf   short P50"), result.findings());
    }

    @Test
    void poissonArrivalsKeepTheirRateAndRepeatBySeed() {
        List<LoadRequest> requests = PoissonBenchmark.arrivals(workload(), 20_000, 4.0, 7);
        double span = requests.get(requests.size() - 1).sendAtSeconds();
        assertEquals(20_000 / 4.0, span, 20_000 / 4.0 * 0.03);
        assertEquals(requests, PoissonBenchmark.arrivals(workload(), 20_000, 4.0, 7));
    }

    @Test
    void variantNames() {
        LoadVariant tau = LoadVariant.parse("hrrn-tau", Duration.ofSeconds(5));
        assertEquals("hrrn", tau.policy());
        assertEquals(Duration.ofSeconds(5), tau.tau());
        assertTrue(LoadVariant.parse("oracle-sjf", Duration.ZERO).oracle());
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("lifo", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> LoadVariant.parse("sjf-tau", Duration.ZERO));
    }
}
