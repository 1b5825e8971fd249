package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.scheduler.ewsjf.Trial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The event loop's rules, on workloads small enough to work out by hand. */
class SimulationTest {

    @Test
    void aLongJobThatWaitedPastTauGoesBeforeShorterOnes() {
        // One long job at t = 0 waits behind a 10 s job; short jobs keep arriving. Pure SJF serves every
        // short job first; with τ = 5 s the long job goes as soon as the running job ends.
        List<SimRequest> requests = new ArrayList<>();
        requests.add(request(0, 0, "running", 10));
        requests.add(request(1, 0.5, "long", 20));
        for (int i = 2; i < 12; i++) {
            requests.add(request(i, i, "short", 1));
        }
        Workload workload = new Workload(requests);

        SimulationRun pure = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SimulatedBackend.slots(1));
        SimulationRun guarded = Simulation.run(workload, PolicyVariant.parse("sjf-tau", Duration.ofSeconds(5)), SimulatedBackend.slots(1));

        assertEquals(20, start(pure, 1), 1e-9, "pure SJF: after the ten short jobs");
        assertEquals(0, pure.starvationPromotions());
        assertEquals(10, start(guarded, 1), 1e-9, "with τ: the moment the slot frees");
        assertEquals(1, guarded.starvationPromotions());
        assertEquals(1, guarded.starvationPromotions("long"));
        assertTrue(guarded.completed().stream().filter(c -> c.request().id() == 1).allMatch(CompletedRequest::starvationPromoted));
    }

    @Test
    void jobsArrivingTogetherAreAllQueuedBeforeTheFirstIsChosen() {
        Workload burst = new Workload(List.of(request(0, 0, "long", 9), request(1, 0, "short", 1)));
        SimulationRun run = Simulation.run(burst, PolicyVariant.parse("sjf", Duration.ZERO), SimulatedBackend.slots(1));
        assertEquals(0, start(run, 1), 1e-9);
        assertEquals(1, start(run, 0), 1e-9);
    }

    @Test
    void eachSlotRunsOneJobAtATime() {
        List<SimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            requests.add(request(i, 0, "job", 2));
        }
        SimulationRun run = Simulation.run(new Workload(requests), PolicyVariant.parse("fcfs", Duration.ZERO), SimulatedBackend.slots(3));
        List<Double> finishes = run.completed().stream().map(CompletedRequest::finishSeconds).sorted().toList();
        assertEquals(List.of(2.0, 2.0, 2.0, 4.0, 4.0, 4.0), finishes);
    }

    @Test
    void hrrnLetsALongWaitingJobOvertakeAShortNewcomer() {
        // At t = 10 the slot frees. Job 1 (S = 4) has waited 9.5 s: ratio 1 + 9.5/4 = 3.4.
        // Job 2 (S = 1) has waited 1 s: ratio 2. HRRN takes job 1; SJF would take job 2.
        Workload workload = new Workload(List.of(request(0, 0, "job", 10), request(1, 0.5, "job", 4), request(2, 9, "job", 1)));
        SimulationRun hrrn = Simulation.run(workload, PolicyVariant.parse("hrrn", Duration.ZERO), SimulatedBackend.slots(1));
        SimulationRun sjf = Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SimulatedBackend.slots(1));
        assertEquals(10, start(hrrn, 1), 1e-9);
        assertEquals(10, start(sjf, 2), 1e-9);
    }

    @Test
    void nonOraclePoliciesOrderByTheEstimateAndOraclesByTheTruth() {
        // Job 1 is really short but estimated long; job 2 the reverse.
        Workload workload = new Workload(List.of(new SimRequest(0, 0, "job", 5, 5),
                new SimRequest(1, 1, "job", 1, 8), new SimRequest(2, 2, "job", 8, 1)));
        assertEquals(5, start(Simulation.run(workload, PolicyVariant.parse("sjf", Duration.ZERO), SimulatedBackend.slots(1)), 2), 1e-9);
        assertEquals(5, start(Simulation.run(workload, PolicyVariant.parse("oracle-sjf", Duration.ZERO), SimulatedBackend.slots(1)), 1), 1e-9);
    }

    @Test
    void everyJobCompletesOnceAndTimeOnlyMovesForward() {
        Workload workload = Workload.synthetic(new ArrivalProcess.Poisson(0.2), ClairvoyantTable9.sizes(),
                ClairvoyantTable9.estimates(), 3_000, 5);
        SimulationRun run = Simulation.run(workload, PolicyVariant.parse("hrrn-tau", Duration.ofSeconds(20)), SimulatedBackend.slots(2));
        assertEquals(3_000, run.completed().size());
        assertEquals(3_000, run.completed().stream().map(c -> c.request().id()).distinct().count());
        for (CompletedRequest completed : run.completed()) {
            assertFalse(completed.startSeconds() < completed.arrivalSeconds());
            assertEquals(completed.request().serviceSeconds(), completed.finishSeconds() - completed.startSeconds(), 1e-6);
        }
        List<CompletedRequest> byFinish = new ArrayList<>(run.completed());
        byFinish.sort(Comparator.comparingDouble(CompletedRequest::finishSeconds));
        assertEquals(byFinish, run.completed(), "completions are recorded in time order");
    }

    @Test
    void aBatchedBackendDecodesTogetherAndSlowsEachStep() {
        // The replay backend's own example: two slots, 0.5 s prefill, 1 s a token alone, +50% per extra
        // job in the batch. A decodes alone from 0.5 (first token at 1.5); B joins the next step, [1.5, 3.0]
        // at 1.5 s a step, then finishes alone, [3.0, 4.0].
        ServiceTimeModel speed = new ServiceTimeModel(0.5, 1);
        List<SimRequest> requests = List.of(
                new SimRequest(0, 0, JobSize.ofTokens("a", 0, 2, speed, null), 2.5),
                new SimRequest(1, 0, JobSize.ofTokens("b", 0, 2, speed, null), 2.5));
        SimulationRun run = Simulation.run(new Workload(requests), PolicyVariant.parse("fcfs", Duration.ZERO),
                new SimulatedBackend(2, 1, 0.5));
        CompletedRequest a = run.completed().stream().filter(c -> c.request().id() == 0).findFirst().orElseThrow();
        CompletedRequest b = run.completed().stream().filter(c -> c.request().id() == 1).findFirst().orElseThrow();
        assertEquals(1.5, a.timeToFirstTokenSeconds(), 1e-9);
        assertEquals(3.0, a.finishSeconds(), 1e-9);
        assertEquals(3.0, b.timeToFirstTokenSeconds(), 1e-9);
        assertEquals(4.0, b.finishSeconds(), 1e-9);
        assertEquals(4 / 4.0, run.tokensPerSecond(), 1e-9);
    }

    @Test
    void tokenJobsNeedABackendThatDecodes() {
        Workload workload = new Workload(List.of(new SimRequest(0, 0, JobSize.ofTokens("a", 0, 5, new ServiceTimeModel(0.1, 0.02), null), 1)));
        assertThrows(IllegalArgumentException.class,
                () -> Simulation.run(workload, PolicyVariant.parse("fcfs", Duration.ZERO), SimulatedBackend.slots(1)));
    }

    @Test
    void ewsjfRunsInTheSimulatorWithItsTrialsRecorded() {
        ServiceTimeModel speed = new ServiceTimeModel(0.1, 0.0002, 0.02);
        List<SimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            boolean longPrompt = i % 5 == 0;
            JobSize size = JobSize.ofTokens(longPrompt ? "long" : "short", longPrompt ? 6000 + i % 97 : 100 + i % 53,
                    longPrompt ? 400 : 60, speed, null);
            requests.add(new SimRequest(i, i * 1.6, size, size.serviceSeconds()));
        }
        EwsjfSettings settings = EwsjfSettings.defaults().withIntervals(Duration.ofSeconds(60), Duration.ofSeconds(120));
        SimulationRun run = Simulation.run(new Workload(requests), PolicyVariant.parse("ewsjf", Duration.ZERO, settings),
                new SimulatedBackend(2, 0.02, 0.05));
        assertEquals(3000, run.completed().size());
        assertTrue(run.trials().size() >= 20, run.trials().size() + " trials of 120 s in 4,800 s");
        assertEquals(java.util.stream.IntStream.rangeClosed(1, run.trials().size()).boxed().toList(),
                run.trials().stream().map(Trial::index).toList(), "every trial, in order");
        SimulationRun fcfs = Simulation.run(new Workload(requests), PolicyVariant.parse("fcfs", Duration.ZERO), new SimulatedBackend(2, 0.02, 0.05));
        assertTrue(run.timeToFirstToken("short").p50() <= fcfs.timeToFirstToken("short").p50(),
                "short prompts wait no longer than under fcfs");
    }

    private static SimRequest request(int id, double arrival, String jobClass, double seconds) {
        return new SimRequest(id, arrival, jobClass, seconds, seconds);
    }

    private static double start(SimulationRun run, int id) {
        return run.completed().stream().filter(c -> c.request().id() == id).findFirst().orElseThrow().startSeconds();
    }
}
