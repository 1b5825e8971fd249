package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code laps} policy on a clock the test moves: levels, the order within one, pauses and resumes. */
class LapsSchedulerTest {

    /** K = 3, M = 2, S_1 = 1 s: levels [0, 1), [1, 2), [2, ∞); windows of 4 tokens; γ = 2, δ = 0.1. */
    private static final LapsSettings LAPS = new LapsSettings(3, 2, 1, 4, 2, 0.1, 2, 1);

    private final ManualClock clock = new ManualClock();

    private Scheduler<String> scheduler(LapsSettings laps, Duration tau, int slots) {
        return new Scheduler<>(new SchedulerSettings(Policy.LAPS, tau, 100, slots, laps), clock);
    }

    private static List<String> waitingNames(Scheduler<String> s) {
        return s.waitingInDispatchOrder().stream().map(Job::payload).toList();
    }

    /** Runs a dispatch for {@code seconds}, reporting a token every {@code secondsPerToken}. */
    private void run(Scheduler<String> s, Dispatch<String> dispatch, double seconds, double secondsPerToken) {
        long tokens = dispatch.job().progress().tokens();
        for (double t = secondsPerToken; t <= seconds + 1e-9; t += secondsPerToken) {
            clock.advanceSeconds(secondsPerToken);
            s.progress(dispatch, ++tokens);
        }
    }

    @Test
    void aJobMovesDownAsItIsServed() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("a", 0, JobCost.ofAnswer(100, 2), true);
        Dispatch<String> a = s.dispatchNext();
        assertEquals(1, a.job().progress().level());
        run(s, a, 0.9, 0.1);
        assertEquals(1, a.job().progress().level());
        run(s, a, 0.2, 0.1);
        assertEquals(2, a.job().progress().level(), "past S_1 = 1 s");
        run(s, a, 1.0, 0.1);
        assertEquals(3, a.job().progress().level(), "past S_2 = 2 s");
        run(s, a, 10, 0.5);
        assertEquals(3, a.job().progress().level(), "the last level has no bound");
        assertEquals(12.1, a.job().progress().attainedSeconds(clock.nanoTime()), 1e-6);
    }

    @Test
    void withoutAPerceptibleRateNewJobsGoFirstComeFirstServed() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(1000, 20), true);
        s.submit("short", 0, JobCost.ofAnswer(10, 0.2), true);
        assertEquals(List.of("long", "short"), waitingNames(s));
    }

    @Test
    void withGammaZeroNewJobsGoByPredictedLength() {
        LapsSettings trusting = new LapsSettings(3, 2, 1, 4, 0, 0.1, 2, 1);
        Scheduler<String> s = scheduler(trusting, Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(1000, 20), true);
        s.submit("medium", 0, JobCost.ofAnswer(300, 6), true);
        s.submit("short", 0, JobCost.ofAnswer(10, 0.2), true);
        assertEquals(List.of("short", "medium", "long"), waitingNames(s));
    }

    /** Two ways a waiting job's cost changes: a better estimate (resize), a new service-time model (recost). */
    @Test
    void withGammaZeroAWaitingJobIsRankedByItsNewCostsRate() {
        LapsSettings trusting = new LapsSettings(3, 2, 1, 4, 0, 0.1, 2, 1);
        Scheduler<String> s = scheduler(trusting, Duration.ZERO, 1);
        Job<String> a = s.submit("a", 0, JobCost.ofAnswer(10, 2.0), true).orElseThrow();
        s.submit("b", 0, JobCost.ofAnswer(600, 31.5), true);
        s.resize(a, JobCost.ofAnswer(500, 26.5));
        assertEquals(List.of("a", "b"), waitingNames(s), "a: 26.5 s left at its new cost's rate, not 100 s at its first");
        assertEquals(26.5, a.progress().remainingSeconds(), 1e-9);

        Scheduler<String> faster = scheduler(trusting, Duration.ZERO, 1);
        faster.submit("c", 0, JobCost.ofAnswer(100, 2.0), true);
        faster.recost(job -> true, job -> JobCost.ofAnswer(100, 1.0));
        faster.submit("d", 0, JobCost.ofAnswer(150, 1.5), true);
        assertEquals(List.of("c", "d"), waitingNames(faster), "c: 1 s left at the new model's rate, not 2 s");
    }

    @Test
    void aSteadyRateBecomesPerceptibleAndAnUnsteadyOneDoesNot() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 100, 4, 2, 0.1, 2, 1), Duration.ZERO, 2);
        s.submit("steady", 0, JobCost.ofAnswer(100, 2), true);
        s.submit("jumpy", 0, JobCost.ofAnswer(100, 2), true);
        Dispatch<String> steady = s.dispatchNext();
        Dispatch<String> jumpy = s.dispatchNext();
        s.progress(steady, 1);
        run(s, steady, 0.8, 0.1);
        assertTrue(steady.job().progress().perceptible(), "two windows of 4 tokens at 0.1 s a token");

        s.progress(jumpy, 1);
        run(s, jumpy, 0.04, 0.01);
        run(s, jumpy, 2, 0.5);
        assertFalse(jumpy.job().progress().perceptible(), "windows at 0.01 and 0.5 s a token");
    }

    @Test
    void aPrefillDoesNotCountAsASlowWindow() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 100, 4, 2, 0.1, 2, 1), Duration.ZERO, 1);
        s.submit("a", 0, JobCost.ofAnswer(100, 2), true);
        Dispatch<String> a = s.dispatchNext();
        clock.advanceSeconds(3); // time to the first token
        s.progress(a, 1);
        run(s, a, 0.8, 0.1);
        assertTrue(a.job().progress().perceptible());
    }

    /** An adaptive limit or an ejected backend leaves fewer slots in force than the settings': busy, they are all busy. */
    @Test
    void aPauseIsDueWhenEverySlotInForceIsBusy() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 2);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        s.progress(first, 1);
        run(s, first, 1.1, 0.1);
        s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
        assertNull(s.pauseDue(), "one of the two slots is free");
        assertNull(s.pauseDue(1, dispatch -> false), "its run, on an ejected backend, would free no slot in force");
        assertSame(first, s.pauseDue(1, dispatch -> true), "the one slot in force is busy");
    }

    @Test
    void aDemotedJobIsPausedForANewOneAndResumesWithWhatItHad() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        s.progress(first, 1);
        run(s, first, 0.5, 0.1);
        s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
        assertNull(s.pauseDue(), "same level: no pause");
        run(s, first, 0.6, 0.1);
        assertEquals(2, first.job().progress().level());
        Dispatch<String> victim = s.pauseDue();
        assertSame(first, victim);
        assertTrue(victim.pauseRequested());
        assertNull(s.pauseDue(), "one pause asked at a time");

        s.pause(victim, 12);
        assertTrue(first.job().progress().paused());
        assertEquals(1, s.pauses());
        Dispatch<String> next = s.dispatchNext();
        assertEquals("new", next.job().payload());
        assertFalse(next.resumes());
        s.release(next);

        Dispatch<String> resumed = s.dispatchNext();
        assertSame(first.job(), resumed.job());
        assertTrue(resumed.resumes());
        assertEquals(12, resumed.resumedTokens());
        assertFalse(resumed.job().progress().paused());
        assertEquals(1, s.resumes());
        assertEquals(12, s.reprefilledTokens());
    }

    @Test
    void aJobThatFinishesBeforeItsPauseIsSimplyReleased() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        run(s, first, 1.2, 0.1);
        s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
        assertSame(first, s.pauseDue());
        s.release(first);
        assertThrows(IllegalStateException.class, () -> s.pause(first, 12));
        assertEquals(0, s.pauses());
        assertEquals("new", s.dispatchNext().job().payload());
        assertNull(s.pauseDue());
    }

    @Test
    void deepLevelsRunToTheEnd() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 1, 4, 2, 0.1, 1, 5), Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        run(s, first, 1.2, 0.1);
        s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
        assertNull(s.pauseDue(), "level 2 is beyond the preemptive levels");
    }

    @Test
    void aJobIsPausedAtMostMaxPreemptionsTimes() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 1, 4, 2, 0.1, 3, 1), Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        run(s, first, 1.2, 0.1);
        s.submit("new-1", 0, JobCost.ofAnswer(50, 1), true);
        s.pause(s.pauseDue(), 12);
        s.release(s.dispatchNext());
        Dispatch<String> resumed = s.dispatchNext();
        s.submit("new-2", 0, JobCost.ofAnswer(50, 1), true);
        run(s, resumed, 1.0, 0.1);
        assertEquals(3, resumed.job().progress().level());
        assertNull(s.pauseDue(), "paused once already, the limit");
    }

    @Test
    void aRunIsNotCutShortBeforeItMovesDownALevel() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 1, 4, 2, 0.1, 3, 3), Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        run(s, first, 1.2, 0.1);
        s.submit("new-1", 0, JobCost.ofAnswer(50, 1), true);
        s.pause(s.pauseDue(), 12);
        s.release(s.dispatchNext());
        Dispatch<String> resumed = s.dispatchNext();
        assertEquals(2, resumed.job().progress().level());
        s.submit("new-2", 0, JobCost.ofAnswer(50, 1), true);
        run(s, resumed, 0.5, 0.1);
        assertNull(s.pauseDue(), "resumed in level 2, and still there: its level-2 quantum is not used up");
        run(s, resumed, 0.4, 0.1);
        assertSame(resumed, s.pauseDue(), "past S_2 = 2 s of service, in level 3");
    }

    @Test
    void aJobItsHolderCannotPauseIsNeverAsked() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), false);
        Dispatch<String> first = s.dispatchNext();
        run(s, first, 1.2, 0.1);
        s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
        assertNull(s.pauseDue());
    }

    @Test
    void aJobInTheSystemLongerThanTauIsNotPausedAndGoesFirstWhenPaused() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 1, 4, 2, 0.1, 3, 5), Duration.ofSeconds(5), 1);
        s.submit("old", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> old = s.dispatchNext();
        run(s, old, 1.2, 0.1);
        s.submit("young", 0, JobCost.ofAnswer(50, 1), true);
        s.pause(s.pauseDue(), 12);
        s.submit("younger", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> young = s.dispatchNext();
        clock.advanceSeconds(5);
        // "old" arrived first and has been in the system longer than τ: it goes before "younger",
        // although "younger" is in level 1 and "old" in level 2.
        assertEquals(List.of("old", "younger"), waitingNames(s));
        s.release(young);
        Dispatch<String> resumed = s.dispatchNext();
        assertEquals("old", resumed.job().payload());
        assertTrue(resumed.starvationPromoted());
        s.submit("newest", 0, JobCost.ofAnswer(50, 1), true);
        run(s, resumed, 1.0, 0.1);
        assertEquals(3, resumed.job().progress().level());
        assertNull(s.pauseDue(), "past τ, never paused again");
    }

    @Test
    void clientPriorityRanksAboveLevels() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("background", 5, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> background = s.dispatchNext();
        s.submit("urgent", 0, JobCost.ofAnswer(50, 1), true);
        assertNull(s.pauseDue(), "not before the running job moves down a level");
        run(s, background, 1.2, 0.1);
        assertSame(background, s.pauseDue());
        s.pause(background, 12);
        Dispatch<String> urgent = s.dispatchNext();
        run(s, urgent, 1.2, 0.1);
        assertEquals(2, urgent.job().progress().level());
        assertNull(s.pauseDue(), "a waiting job of a worse priority never pauses a better one, whatever the levels");
    }

    @Test
    void theDeepestThenMostServedRunningJobIsPaused() {
        for (int preemptiveLevels : new int[] {4, 3}) {
            Scheduler<String> s = scheduler(new LapsSettings(4, 2, 1, 4, 2, 0.1, preemptiveLevels, 2), Duration.ZERO, 3);
            List<Dispatch<String>> running = new ArrayList<>();
            for (String name : List.of("a", "b", "c")) {
                s.submit(name, 0, JobCost.ofAnswer(50, 1), true);
                running.add(s.dispatchNext());
                clock.advanceSeconds(1);
            }
            clock.advanceSeconds(1);
            // Served 4, 3 and 2 s: levels 4, 3 and 3 (thresholds 1, 2, 4 s).
            running.forEach(dispatch -> s.progress(dispatch, 20));
            s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
            String expected = preemptiveLevels == 4 ? "a" : "b";
            assertEquals(expected, s.pauseDue().job().payload(), "preemptive levels " + preemptiveLevels);
        }
    }

    @Test
    void aPausedJobWaitsInItsLevelByPredictedRemainingTime() {
        Scheduler<String> s = scheduler(new LapsSettings(3, 2, 1, 4, 2, 0.1, 3, 3), Duration.ZERO, 2);
        s.submit("nearly-done", 0, JobCost.ofAnswer(30, 1), true);
        s.submit("far-from-done", 0, JobCost.ofAnswer(500, 10), true);
        Dispatch<String> near = s.dispatchNext();
        Dispatch<String> far = s.dispatchNext();
        s.progress(near, 1);
        s.progress(far, 1);
        for (int token = 2; token <= 12; token++) {
            clock.advanceSeconds(0.1);
            s.progress(near, token);
            s.progress(far, token);
        }
        assertTrue(near.job().progress().perceptible());
        s.submit("new-1", 0, JobCost.ofAnswer(50, 1), true);
        assertSame(near, s.pauseDue());
        s.pause(near, 12);
        assertEquals("new-1", s.dispatchNext().job().payload());
        s.submit("new-2", 0, JobCost.ofAnswer(50, 1), true);
        assertSame(far, s.pauseDue());
        s.pause(far, 12);
        List<String> order = waitingNames(s);
        assertEquals(List.of("new-2", "nearly-done", "far-from-done"), order);
        assertTrue(near.job().progress().remainingSeconds() < far.job().progress().remainingSeconds());
    }

    @Test
    void otherPoliciesNeverPauseAndKeepTheirLevel() {
        for (Policy policy : List.of(Policy.FCFS, Policy.SJF, Policy.HRRN)) {
            Scheduler<String> s = new Scheduler<>(new SchedulerSettings(policy, Duration.ZERO, 100, 1, LAPS), clock);
            s.submit("a", 0, JobCost.ofAnswer(50, 1), true);
            Dispatch<String> a = s.dispatchNext();
            run(s, a, 5, 0.1);
            s.submit("b", 0, JobCost.ofAnswer(50, 1), true);
            assertNull(s.pauseDue(), policy.label());
            assertEquals(1, a.job().progress().level(), policy.label());
            assertEquals(50, a.job().progress().tokens(), policy.label());
        }
    }

    @Test
    void progressAfterTheEndIsIgnored() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("a", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> a = s.dispatchNext();
        s.progress(a, 3);
        s.release(a);
        s.progress(a, 40);
        assertEquals(3, a.job().progress().tokens());
    }

    @Test
    void aPausedJobCanBeWithdrawn() {
        Scheduler<String> s = scheduler(LAPS, Duration.ZERO, 1);
        s.submit("long", 0, JobCost.ofAnswer(50, 1), true);
        Dispatch<String> first = s.dispatchNext();
        run(s, first, 1.2, 0.1);
        s.submit("new", 0, JobCost.ofAnswer(50, 1), true);
        s.pause(s.pauseDue(), 12);
        assertTrue(s.cancel(first.job()));
        assertEquals(List.of("new"), waitingNames(s));
    }
}
