package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.cli.Flags;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Where each routing sends a burst on a fast and a slow backend, worked out by hand, and the shared queue against one big backend. */
class ScaleOutSimulationTest {

    /** One backend of speed 1 and one four times slower, one slot each. */
    private static final List<Double> FAST_AND_SLOW = List.of(1.0, 0.25);

    private static final PolicyVariant FCFS = PolicyVariant.parse("fcfs", Duration.ZERO);

    @Test
    void roundRobinAlternatesWhateverTheSpeeds() {
        // Fast: jobs 0 and 2 end at 1 and 2 s; slow: jobs 1 and 3 at 4 and 8 s.
        assertArrayEquals(new double[] {1, 4, 2, 8}, sojourns(Routing.ROUND_ROBIN), 1e-9);
    }

    @Test
    void leastOutstandingSplitsByCountAndBreaksTiesToTheFaster() {
        assertArrayEquals(new double[] {1, 4, 2, 8}, sojourns(Routing.LEAST_OUTSTANDING), 1e-9);
    }

    @Test
    void leastExpectedCompletionQueuesOnTheFastBackendWhileItWouldStillFinishFirst() {
        // The fourth job would end at 4 s on either backend: the tie goes to the faster one.
        assertArrayEquals(new double[] {1, 2, 3, 4}, sojourns(Routing.LEAST_EXPECTED_COMPLETION), 1e-9);
    }

    @Test
    void powerOfTwoOnTwoBackendsComparesBothAsLeastOutstandingDoes() {
        assertArrayEquals(sojourns(Routing.LEAST_OUTSTANDING), sojourns(Routing.POWER_OF_TWO), 1e-9);
    }

    @Test
    void theSharedQueueBindsEachJobToWhicheverSlotFreesFirst() {
        // Jobs 0 and 1 start at once; the fast backend then takes 2 and 3 as it frees, before the slow one is done.
        assertArrayEquals(new double[] {1, 4, 2, 3}, sojourns(Routing.SHARED_QUEUE), 1e-9);
    }

    @Test
    void aSharedQueueOverEqualBackendsIsOneBackendWithAllTheirSlots() {
        Workload workload = Workload.synthetic(ArrivalProcess.Poisson.atUtilisation(0.9, ClairvoyantTable9.sizes().meanServiceSeconds(), 3),
                ClairvoyantTable9.sizes(), new EstimateModel.LogNormalNoise(0.5), 3000, 11);
        PolicyVariant sjf = PolicyVariant.parse("sjf", Duration.ZERO);

        SimulationRun pool = ScaleOutSimulation.run(workload, sjf, SimulatedBackend.slots(1), List.of(1.0, 1.0, 1.0), Routing.SHARED_QUEUE, 0);
        SimulationRun single = Simulation.run(workload, sjf, SimulatedBackend.slots(3));
        SimulationRun routed = ScaleOutSimulation.run(workload, sjf, SimulatedBackend.slots(1), List.of(1.0, 1.0, 1.0), Routing.LEAST_OUTSTANDING, 0);

        assertArrayEquals(byId(single), byId(pool), 1e-6);
        assertTrue(routed.meanSojournSeconds() > pool.meanSojournSeconds() * 1.05,
                "routing on arrival fixes a job to a queue a shorter job may jump: " + routed.meanSojournSeconds() + " vs " + pool.meanSojournSeconds());
    }

    @Test
    void sidecarsThatSplitThePoolSeeOnlyTheirOwnQueue() {
        Workload workload = Workload.synthetic(ArrivalProcess.Poisson.atUtilisation(0.9, ClairvoyantTable9.sizes().meanServiceSeconds(), 8),
                ClairvoyantTable9.sizes(), new EstimateModel.LogNormalNoise(0.5), 3000, 5);
        PolicyVariant sjf = PolicyVariant.parse("sjf", Duration.ZERO);
        List<Double> speeds = List.of(1.0, 1.0);

        SimulationRun one = ScaleOutSimulation.run(workload, sjf, SimulatedBackend.slots(4), speeds, 1, Routing.SHARED_QUEUE, 0);
        SimulationRun four = ScaleOutSimulation.run(workload, sjf, SimulatedBackend.slots(4), speeds, 4, Routing.SHARED_QUEUE, 0);

        assertEquals(3000, four.completed().size());
        assertTrue(four.meanSojournSeconds() > one.meanSojournSeconds() * 1.05,
                "four queues of two slots each order less than one of eight: " + four.meanSojournSeconds() + " vs " + one.meanSojournSeconds());
        var uneven = assertThrows(IllegalArgumentException.class,
                () -> ScaleOutSimulation.run(workload, sjf, SimulatedBackend.slots(4), speeds, 3, Routing.SHARED_QUEUE, 0));
        assertEquals("sidecars: 3 (expected: >= 1, dividing the 4 slots of a backend)", uneven.getMessage());
    }

    @Test
    void theCommandComparesEveryRoutingOnThePool() throws Exception {
        String output = SimulateCommand.run(Flags.parse(new String[] {"scale-out", "--requests", "400", "--seeds", "1", "--slots", "2",
                "--speeds", "1,0.5", "--policies", "sjf"}));
        for (Routing routing : Routing.values()) {
            assertTrue(output.contains("| " + routing.label() + " | sjf |"), output);
        }
    }

    @Test
    void mistakesAreNamedWithWhatWasExpected() {
        Workload workload = burst();
        var noSpeed = assertThrows(IllegalArgumentException.class,
                () -> ScaleOutSimulation.run(workload, FCFS, SimulatedBackend.slots(1), List.of(1.0, 0.0), Routing.SHARED_QUEUE, 0));
        assertEquals("backend speeds: [1.0, 0.0] (expected: at least one, each finite and > 0)", noSpeed.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ScaleOutSimulation.run(workload, PolicyVariant.parse("laps", Duration.ZERO),
                SimulatedBackend.of(1), FAST_AND_SLOW, Routing.SHARED_QUEUE, 0));
        var routing = assertThrows(IllegalArgumentException.class, () -> Routing.parse("random"));
        assertTrue(routing.getMessage().startsWith("routing: random (expected: round-robin, "), routing.getMessage());
    }

    /** Four 1 s jobs at t = 0 on the fast and the slow backend: each job's sojourn, by id. */
    private static double[] sojourns(Routing routing) {
        return byId(ScaleOutSimulation.run(burst(), FCFS, SimulatedBackend.slots(1), FAST_AND_SLOW, routing, 3));
    }

    private static Workload burst() {
        return new Workload(IntStream.range(0, 4).mapToObj(id -> new SimRequest(id, 0, "job", 1, 1)).toList());
    }

    private static double[] byId(SimulationRun run) {
        return run.completed().stream().sorted(Comparator.comparingInt(c -> c.request().id()))
                .mapToDouble(CompletedRequest::sojournSeconds).toArray();
    }
}
