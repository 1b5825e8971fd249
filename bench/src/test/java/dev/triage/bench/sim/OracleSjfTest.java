package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Oracle SJF never has a higher mean sojourn time than FCFS on the same arrivals. */
class OracleSjfTest {

    private static final List<JobSizes> SIZES = List.of(
            ClairvoyantTable9.sizes(),
            // Heavy-tailed: gamma with shape 0.5 has C² = 2.
            new JobSizes.ClassMixture(List.of(new JobSizes.ClassMixture.Component("job", 1, new Distribution.Gamma(0.5, 4)))));

    @Test
    void oracleSjfMeanIsNeverAboveFcfs() {
        PolicyVariant fcfs = PolicyVariant.parse("fcfs", Duration.ZERO);
        PolicyVariant oracle = PolicyVariant.parse("oracle-sjf", Duration.ZERO);
        for (JobSizes sizes : SIZES) {
            for (int slots : new int[] {1, 3}) {
                for (double rho : new double[] {0.5, 0.8, 0.95}) {
                    for (long seed = 0; seed < 5; seed++) {
                        ArrivalProcess arrivals = ArrivalProcess.Poisson.atUtilisation(rho, sizes.meanServiceSeconds(), slots);
                        // Estimates are deliberately poor: the oracle must not read them.
                        Workload workload = Workload.synthetic(arrivals, sizes, new EstimateModel.LogNormalNoise(3), 2_000, seed);
                        double fcfsMean = Simulation.run(workload, fcfs, SimulatedBackend.slots(slots)).meanSojournSeconds();
                        double oracleMean = Simulation.run(workload, oracle, SimulatedBackend.slots(slots)).meanSojournSeconds();
                        assertTrue(oracleMean <= fcfsMean, String.format(
                                "%s, %d slot(s), rho %.2f, seed %d: oracle SJF %.3f s > FCFS %.3f s",
                                sizes, slots, rho, seed, oracleMean, fcfsMean));
                    }
                }
            }
        }
    }

    @Test
    void aBurstUnderOracleSjfHasTheSmallestPossibleMean() {
        Workload burst = Workload.synthetic(new ArrivalProcess.Burst(), ClairvoyantTable9.sizes(), new EstimateModel.Exact(), 100, 3);
        double[] sorted = burst.requests().stream().mapToDouble(SimRequest::serviceSeconds).sorted().toArray();
        double finish = 0;
        double total = 0;
        for (double service : sorted) {
            finish += service;
            total += finish;
        }
        double oracleMean = Simulation.run(burst, PolicyVariant.parse("oracle-sjf", Duration.ZERO), SimulatedBackend.slots(1)).meanSojournSeconds();
        assertEquals(total / sorted.length, oracleMean, 1e-6);
    }
}
