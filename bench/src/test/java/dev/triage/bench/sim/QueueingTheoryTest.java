package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator against closed forms of M/G/1 queueing: the Pollaczek–Khinchine mean wait under FCFS,
 * and Cobham's mean waits per class under non-preemptive priority (SJF that knows only the class).
 * 400,000 jobs at ρ = 0.5 put the standard error of the mean wait near 1%, so 5% is a safe bound.
 */
class QueueingTheoryTest {

    private static final int JOBS = 400_000;
    private static final double RHO = 0.5;

    @Test
    void fcfsMeanWaitMatchesPollaczekKhinchine() {
        // Gamma(2, 0.5): E[S] = 1 s, E[S²] = Var + E[S]² = 0.5 + 1 = 1.5 s².
        Distribution service = new Distribution.Gamma(2, 0.5);
        JobSizes sizes = new JobSizes.ClassMixture(List.of(new JobSizes.ClassMixture.Component("job", 1, service)));
        double lambda = RHO / service.mean();
        double secondMoment = 1.5;
        double expectedWait = lambda * secondMoment / (2 * (1 - RHO));

        Workload workload = Workload.synthetic(new ArrivalProcess.Poisson(lambda), sizes, new EstimateModel.Exact(), JOBS, 7);
        SimulationRun run = Simulation.run(workload, PolicyVariant.parse("fcfs", Duration.ZERO), SimulatedBackend.slots(1));

        assertEquals(expectedWait, meanWait(run, "job"), 0.05 * expectedWait);
    }

    @Test
    void classAwareSjfMeanWaitsMatchCobham() {
        // Exponential short (mean 0.5 s) and long (mean 2 s) jobs, 75/25: E[S] = 0.875 s.
        Distribution shortService = new Distribution.Gamma(1, 0.5);
        Distribution longService = new Distribution.Gamma(1, 2);
        JobSizes sizes = new JobSizes.ClassMixture(List.of(
                new JobSizes.ClassMixture.Component("short", 0.75, shortService),
                new JobSizes.ClassMixture.Component("long", 0.25, longService)));
        double lambda = RHO / sizes.meanServiceSeconds();
        // Exponential: E[S²] = 2 mean². W0 = λ E[S²] / 2 over the mix.
        double residual = lambda * (0.75 * 2 * 0.25 + 0.25 * 2 * 4) / 2;
        double shortLoad = lambda * 0.75 * 0.5;
        double shortWait = residual / (1 - shortLoad);
        double longWait = residual / ((1 - shortLoad) * (1 - RHO));

        // A noiseless classifier: every short job ranks before every long one, arrival order within a class.
        EstimateModel classOnly = new EstimateModel.ClassifierNoise(0, 0.5, 2);
        Workload workload = Workload.synthetic(new ArrivalProcess.Poisson(lambda), sizes, classOnly, JOBS, 11);
        SimulationRun run = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SimulatedBackend.slots(1));

        assertEquals(shortWait, meanWait(run, "short"), 0.05 * shortWait);
        assertEquals(longWait, meanWait(run, "long"), 0.05 * longWait);
    }

    private static double meanWait(SimulationRun run, String jobClass) {
        return run.completed().stream().filter(c -> c.request().jobClass().equals(jobClass))
                .mapToDouble(CompletedRequest::waitSeconds).average().orElseThrow();
    }
}
