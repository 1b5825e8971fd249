package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pauses and resumes in the simulator, on workloads worked out by hand, and the SRPT bound. */
class PreemptionSimulationTest {

    /** Two levels split at 1 s of service; reports every 4 tokens; γ = 0; level 2 preemptive; one pause per job. */
    private static final LapsSettings TWO_LEVELS = new LapsSettings(2, 2, 1, 4, 0, 0.2, 2, 1);

    /** 0.1 s + 20 ms per token; resumes re-read 1,000 tokens a second. */
    private static SimulatedBackend backend(int spareSlots) {
        return SimulatedBackend.of(1).withSpareSlots(spareSlots);
    }

    private static PolicyVariant laps(LapsSettings settings) {
        return PolicyVariant.parse("laps", Duration.ZERO, settings);
    }

    private static double finish(SimulationRun run, int id) {
        return run.completed().stream().filter(c -> c.request().id() == id).findFirst().orElseThrow().finishSeconds();
    }

    // A: 500 tokens from t = 0 (0.1 s + 500 × 20 ms = 10.1 s). B: 50 tokens (1.1 s), arriving at t = 2.
    private static final Workload LONG_THEN_SHORT = new Workload(List.of(
            new SimRequest(0, 0, "long", 10.1, 10.1), new SimRequest(1, 2, "short", 1.1, 1.1)));

    @Test
    void aDemotedJobIsPausedForANewOneAndPaysItsPrefillToResume() {
        SimulationRun run = Simulation.run(LONG_THEN_SHORT, laps(TWO_LEVELS), backend(0));
        // A passes 1 s of service at its 48th token (t = 1.06) and moves to level 2; B arrives at t = 2
        // in level 1 and A is paused with 95 tokens done. B runs 2 → 3.1. A resumes: 0.1 s + 95 tokens
        // at 1,000 a second, then its 405 tokens: 3.1 + 0.195 + 8.1.
        assertEquals(3.1, finish(run, 1), 1e-6);
        assertEquals(11.395, finish(run, 0), 1e-6);
        assertEquals(1, run.pauses());
        assertEquals(1, run.resumes());
        assertEquals(95, run.reprefilledTokens());
    }

    @Test
    void aSurvivingKvCacheMakesTheResumeFree() {
        SimulationRun run = Simulation.run(LONG_THEN_SHORT, laps(TWO_LEVELS), backend(1));
        assertEquals(3.1, finish(run, 1), 1e-6);
        assertEquals(11.2, finish(run, 0), 1e-6);
    }

    @Test
    void aNewJobWaitsUntilTheRunningOneLeavesTheFirstLevel() {
        Workload early = new Workload(List.of(new SimRequest(0, 0, "long", 10.1, 10.1), new SimRequest(1, 0.5, "short", 1.1, 1.1)));
        SimulationRun run = Simulation.run(early, laps(TWO_LEVELS), backend(0));
        // B arrives at t = 0.5, in A's level. A reports its 48th token at t = 1.06, past S_1: it moves
        // to level 2 and is paused with 48 tokens. B runs 1.06 → 2.16; A resumes with 0.1 + 0.048 s of
        // prefill and its 452 remaining tokens.
        assertEquals(2.16, finish(run, 1), 1e-6);
        assertEquals(2.16 + 0.148 + 9.04, finish(run, 0), 1e-6);
        assertEquals(1, run.pauses());
    }

    @Test
    void withoutPreemptiveLevelsLapsNeverPauses() {
        LapsSettings none = new LapsSettings(2, 2, 1, 4, 0, 0.2, 0, 1);
        SimulationRun run = Simulation.run(LONG_THEN_SHORT, laps(none), backend(0));
        assertEquals(10.1, finish(run, 0), 1e-6);
        assertEquals(0, run.pauses());
    }

    /** The same two jobs carrying their tokens, so that they run on the generation engine. */
    private static final ServiceTimeModel SPEED = new ServiceTimeModel(0.1, 0, 0.02);
    private static final Workload LONG_THEN_SHORT_TOKENS = new Workload(List.of(
            new SimRequest(0, 0, JobSize.ofTokens("long", 10, 500, SPEED, null), 10.1),
            new SimRequest(1, 2, JobSize.ofTokens("short", 10, 50, SPEED, null), 1.1)));

    @Test
    void jobsThatCarryTheirTokensArePausedAndResumedOnTheEngine() {
        SimulationRun run = Simulation.run(LONG_THEN_SHORT_TOKENS, laps(TWO_LEVELS), new SimulatedBackend(1, 0.02, 0));
        // As above, the prompt's prefill (0.1 s) read again on the resume with A's 95 tokens.
        assertEquals(3.1, finish(run, 1), 1e-6);
        assertEquals(11.395, finish(run, 0), 1e-6);
        assertEquals(1, run.pauses());
        assertEquals(95, run.reprefilledTokens());
    }

    @Test
    void onTheEngineAJobNeverPausedKeepsTheBatchTimingOfEveryOtherPolicy() {
        LapsSettings none = new LapsSettings(2, 2, 1, 4, 0, 0.2, 0, 1);
        SimulatedBackend batched = new SimulatedBackend(2, 0.02, 0.1);
        Workload workload = new Workload(List.of(LONG_THEN_SHORT_TOKENS.requests().get(0),
                new SimRequest(1, 2.01, JobSize.ofTokens("short", 10, 50, SPEED, null), 1.1)));
        SimulationRun laps = Simulation.run(workload, laps(none), batched);
        SimulationRun fcfs = Simulation.run(workload, PolicyVariant.parse("fcfs", Duration.ZERO), batched);
        // B, prefilled at 2.11, joins A's batch at its next step (2.12), where each step is 10% longer.
        assertEquals(2.12 + 50 * 0.022, finish(laps, 1), 1e-6);
        for (int id = 0; id < 2; id++) {
            assertEquals(finish(fcfs, id), finish(laps, id), 1e-9);
        }
    }

    @Test
    void onASerialBackendTheEngineAndTheTokenByTokenRunsAgree() {
        LapsSettings settings = new LapsSettings(4, 2, 1, 16, 2, 0.3, 3, 2);
        Workload inSeconds = Workload.synthetic(ArrivalProcess.Poisson.atUtilisation(0.85, ClairvoyantTable9.sizes().meanServiceSeconds(), 1),
                ClairvoyantTable9.sizes(), new EstimateModel.LogNormalNoise(0.5), 1_000, 5);
        List<SimRequest> withTokens = inSeconds.requests().stream().map(request -> new SimRequest(request.id(), request.arrivalSeconds(),
                JobSize.ofTokens(request.jobClass(), 0, Math.toIntExact(SimulatedBackend.of(1).tokens(request.serviceSeconds())), SPEED, null),
                request.estimatedSeconds())).toList();
        SimulationRun tokenByToken = Simulation.run(inSeconds, laps(settings), SimulatedBackend.of(1));
        SimulationRun engine = Simulation.run(new Workload(withTokens), laps(settings), new SimulatedBackend(1, 0.02, 0));
        assertTrue(tokenByToken.pauses() > 0);
        // A job's tokens take their service time over its rounded count there, 20 ms each here: a few pauses fall otherwise.
        assertEquals(tokenByToken.pauses(), engine.pauses(), 0.01 * tokenByToken.pauses());
        assertEquals(tokenByToken.meanSojournSeconds(), engine.meanSojournSeconds(), 0.01 * tokenByToken.meanSojournSeconds());
    }

    @Test
    void srptRunsTheShortestRemainingJobAtEveryMoment() {
        SimulationRun run = Simulation.run(LONG_THEN_SHORT, PolicyVariant.parse(PolicyVariant.SRPT, Duration.ZERO), SimulatedBackend.of(1));
        assertEquals(3.1, finish(run, 1), 1e-9);
        assertEquals(11.2, finish(run, 0), 1e-9, "free preemption: A loses nothing");
        assertEquals(1, run.pauses());
        Workload newcomerIsLonger = new Workload(List.of(new SimRequest(0, 0, "a", 3, 3), new SimRequest(1, 2, "b", 2, 2)));
        SimulationRun noPause = Simulation.run(newcomerIsLonger, PolicyVariant.parse(PolicyVariant.SRPT, Duration.ZERO), SimulatedBackend.of(1));
        assertEquals(3, finish(noPause, 0), 1e-9, "1 s left beats 2 s");
        assertEquals(0, noPause.pauses());
    }

    @Test
    void srptIsNeverWorseThanNonPreemptiveOracleSjf() {
        for (int slots : new int[] {1, 2}) {
            for (long seed = 0; seed < 3; seed++) {
                Workload workload = Workload.synthetic(ArrivalProcess.Poisson.atUtilisation(0.9, ClairvoyantTable9.sizes().meanServiceSeconds(),
                        slots), ClairvoyantTable9.sizes(), new EstimateModel.Exact(), 2_000, seed);
                double srpt = Simulation.run(workload, PolicyVariant.parse(PolicyVariant.SRPT, Duration.ZERO), SimulatedBackend.of(slots)).meanSojournSeconds();
                double sjf = Simulation.run(workload, PolicyVariant.parse("oracle-sjf", Duration.ZERO), SimulatedBackend.of(slots)).meanSojournSeconds();
                assertTrue(srpt <= sjf + 1e-9, slots + " slot(s), seed " + seed + ": srpt " + srpt + " vs oracle-sjf " + sjf);
            }
        }
    }

    @Test
    void underLoadEveryJobCompletesOnceAndIsPausedAtMostTheAllowedTimes() {
        LapsSettings settings = new LapsSettings(4, 2, 1, 16, 2, 0.3, 3, 2);
        Workload workload = Workload.synthetic(ArrivalProcess.Poisson.atUtilisation(0.85, ClairvoyantTable9.sizes().meanServiceSeconds(), 2),
                ClairvoyantTable9.sizes(), new EstimateModel.LogNormalNoise(0.5), 3_000, 11);
        SimulationRun run = Simulation.run(workload, laps(settings), SimulatedBackend.of(2));
        assertEquals(3_000, run.completed().stream().map(c -> c.request().id()).distinct().count());
        assertEquals(3_000, run.completed().size());
        assertTrue(run.pauses() > 0, "some jobs were paused");
        assertTrue(run.pauses() <= 2L * 3_000);
        assertEquals(run.pauses(), run.resumes(), "every paused job resumed");
        for (CompletedRequest completed : run.completed()) {
            assertTrue(completed.startSeconds() >= completed.arrivalSeconds());
            assertTrue(completed.finishSeconds() - completed.startSeconds() >= completed.request().serviceSeconds() - 1e-6,
                    "a job never takes less than its service time");
        }
    }
}
