package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.Policy;
import org.junit.jupiter.api.Test;

class AsrToyExampleTest {

    @Test
    void fcfsFinishesAtFiveEightTenWithMeanTwentyThreeThirds() {
        SimulationRun run = AsrToyExample.run(Policy.FCFS);
        assertArrayEquals(new double[] {5, 8, 10}, finishTimes(run));
        assertEquals(23.0 / 3, run.meanSojournSeconds(), 1e-12);
    }

    @Test
    void sjfFinishesAtTwoFiveTenWithMeanSeventeenThirds() {
        SimulationRun run = AsrToyExample.run(Policy.SJF);
        assertArrayEquals(new double[] {10, 5, 2}, finishTimes(run));
        assertEquals(17.0 / 3, run.meanSojournSeconds(), 1e-12);
    }

    @Test
    void theReportShowsBothMeansBesideThePapersTruncatedOnes() {
        String report = AsrToyExample.report();
        assertTrue(report.contains("7.6667") && report.contains("7.66"), report);
        assertTrue(report.contains("5.6667") && report.contains("5.66"), report);
    }

    private static double[] finishTimes(SimulationRun run) {
        double[] finish = new double[3];
        for (CompletedRequest completed : run.completed()) {
            finish[completed.request().id()] = completed.finishSeconds();
        }
        return finish;
    }
}
