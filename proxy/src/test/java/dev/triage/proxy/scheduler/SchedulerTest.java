package dev.triage.proxy.scheduler;

import static dev.triage.proxy.scheduler.Dispatches.drainOneByOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.ewsjf.EwsjfQueues;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulerTest {

    private final ManualClock clock = new ManualClock();

    private Scheduler<String> scheduler(Policy policy, Duration tau, int maxQueue, int slots) {
        SchedulerSettings settings = new SchedulerSettings(policy, tau, maxQueue, slots);
        if (policy == Policy.EWSJF) {
            return new Scheduler<>(settings, clock, new EwsjfQueues<>(EwsjfSettings.defaults(), clock, Runnable::run));
        }
        return new Scheduler<>(settings, clock);
    }

    @Test
    void fcfsSendsInArrivalOrder() {
        Scheduler<String> s = scheduler(Policy.FCFS, Duration.ZERO, 100, 1);
        s.submit("long", 0, 1000, 20);
        s.submit("short", 0, 10, 0.2);
        s.submit("medium", 0, 300, 6);
        assertEquals(List.of("long", "short", "medium"), drainOneByOne(s));
    }

    @Test
    void sjfSendsShortestExpectedFirstAndBreaksTiesByArrival() {
        Scheduler<String> s = scheduler(Policy.SJF, Duration.ZERO, 100, 1);
        s.submit("long", 0, 1000, 20);
        s.submit("short-a", 0, 10, 0.2);
        s.submit("medium", 0, 300, 6);
        s.submit("short-b", 0, 10, 0.2);
        assertEquals(List.of("short-a", "short-b", "medium", "long"), drainOneByOne(s));
    }

    @Test
    void priorityRanksAbovePolicy() {
        for (Policy policy : Policy.values()) {
            Scheduler<String> s = scheduler(policy, Duration.ZERO, 100, 1);
            s.submit("short-low-priority", 5, 10, 0.2);
            s.submit("long-urgent", -1, 1000, 20);
            s.submit("short-default", 0, 10, 0.2);
            assertEquals(List.of("long-urgent", "short-default", "short-low-priority"), drainOneByOne(s), policy.label());
        }
    }

    @Test
    void hrrnRatioIsWaitPlusServiceOverService() {
        Scheduler<String> s = scheduler(Policy.HRRN, Duration.ZERO, 100, 1);
        Job<String> job = s.submit("a", 0, 100, 2.0).orElseThrow();
        clock.advanceSeconds(3);
        // The order key is w / S in nanoseconds per second; the response ratio is 1 + that.
        assertEquals((3 + 2.0) / 2.0, 1 + Policy.urgency(job, clock.nanoTime()) / 1e9, 1e-9);
    }

    @Test
    void hrrnPrefersShortJobsUntilWaitingLiftsALongOne() {
        Scheduler<String> s = scheduler(Policy.HRRN, Duration.ZERO, 100, 1);
        s.submit("long", 0, 1000, 10);
        clock.advanceSeconds(1);
        s.submit("short", 0, 10, 1);
        // long: (1 + 10) / 10 = 1.1; short: (0 + 1) / 1 = 1.0 -> long first.
        assertEquals("long", s.waitingInDispatchOrder().get(0).payload());
        clock.advanceSeconds(1);
        // long: (2 + 10) / 10 = 1.2; short: (1 + 1) / 1 = 2.0 -> short first.
        assertEquals(List.of("short", "long"), drainOneByOne(s));
    }

    @Test
    void hrrnTiesBreakByArrival() {
        Scheduler<String> s = scheduler(Policy.HRRN, Duration.ZERO, 100, 1);
        s.submit("first", 0, 10, 1);
        s.submit("second", 0, 10, 1);
        assertEquals(List.of("first", "second"), drainOneByOne(s));
    }

    @Test
    void jobsThatWaitedTheLimitAreRemovedOldestFirstAndTheNextDeadlineIsTheOldestJobs() {
        Scheduler<String> s = scheduler(Policy.SJF, Duration.ZERO, 100, 1);
        long limit = Duration.ofSeconds(30).toNanos();
        assertTrue(s.nextOverdueNanos(limit).isEmpty());
        s.submit("first", 0, 900, 20);
        long firstArrival = clock.nanoTime();
        clock.advance(Duration.ofSeconds(10));
        s.submit("second", 0, 10, 0.2);
        clock.advance(Duration.ofSeconds(10));
        s.submit("third", 0, 500, 10);
        assertEquals(firstArrival + limit, s.nextOverdueNanos(limit).getAsLong());
        clock.advance(Duration.ofSeconds(10).minusNanos(1));
        assertEquals(List.of(), s.removeOverdue(limit));
        clock.advance(Duration.ofSeconds(10).plusNanos(1));
        assertEquals(List.of("first", "second"), s.removeOverdue(limit).stream().map(Job::payload).toList());
        assertEquals(1, s.waitingCount());
        assertEquals(List.of("third"), drainOneByOne(s));
        assertTrue(s.nextOverdueNanos(limit).isEmpty());
    }

    @Test
    void aJobIsStarvedOnlyOnceItHasWaitedLongerThanTau() {
        Scheduler<String> s = scheduler(Policy.SJF, Duration.ofSeconds(10), 100, 1);
        Job<String> job = s.submit("waiting", 0, 100, 2).orElseThrow();
        clock.advance(Duration.ofSeconds(10));
        assertFalse(s.isStarved(job, clock.nanoTime()));
        clock.advance(Duration.ofNanos(1));
        assertTrue(s.isStarved(job, clock.nanoTime()));

        Scheduler<String> off = scheduler(Policy.SJF, Duration.ZERO, 100, 1);
        Job<String> never = off.submit("waiting", 0, 100, 2).orElseThrow();
        clock.advance(Duration.ofDays(1));
        assertFalse(off.isStarved(never, clock.nanoTime()));
    }

    @Test
    void starvedJobGoesFirstAtTheFirstFreeSlotAfterTau() {
        Duration tau = Duration.ofSeconds(10);
        Scheduler<String> s = scheduler(Policy.SJF, tau, 10_000, 1);
        s.submit("long", 0, 1000, 20);
        Dispatch<String> running = null;
        // An endless stream of short jobs, one arriving every second, each taking 2 s.
        String sentAtFirstFreeSlotAfterTau = null;
        double waited = 0;
        for (int second = 0; second < 60 && sentAtFirstFreeSlotAfterTau == null; second++) {
            s.submit("short-" + second, 0, 10, 2);
            if (running != null && second % 2 == 0) {
                s.release(running);
                running = null;
            }
            if (running == null) {
                running = s.dispatchNext();
                if (waited > tau.toSeconds()) {
                    sentAtFirstFreeSlotAfterTau = running.job().payload();
                } else {
                    assertTrue(running.job().payload().startsWith("short"), "before τ, shorts go first");
                }
            }
            clock.advanceSeconds(1);
            waited++;
        }
        assertEquals("long", sentAtFirstFreeSlotAfterTau);
        assertEquals(1, s.starvationPromotions());
    }

    @Test
    void amongStarvedJobsTheOldestGoesFirstWhateverThePriority() {
        Scheduler<String> s = scheduler(Policy.SJF, Duration.ofSeconds(5), 100, 1);
        s.submit("old-long", 3, 1000, 20);
        clock.advanceSeconds(1);
        s.submit("younger-long", 0, 900, 18);
        clock.advanceSeconds(1);
        s.submit("fresh-short", 0, 10, 0.2);
        clock.advanceSeconds(5);
        // old-long waited 7 s, younger-long 6 s: both starved; fresh-short waited 5 s, not over τ.
        assertEquals(List.of("old-long", "younger-long", "fresh-short"),
                s.waitingInDispatchOrder().stream().map(Job::payload).toList());
        Dispatch<String> first = s.dispatchNext();
        assertEquals("old-long", first.job().payload());
        assertTrue(first.starvationPromoted());
    }

    @Test
    void starvationTimeoutWorksWithEveryPolicy() {
        for (Policy policy : Policy.values()) {
            Scheduler<String> s = scheduler(policy, Duration.ofSeconds(2), 100, 1);
            s.submit("urgent-but-late", 9, 10, 1);
            s.submit("urgent", 0, 10, 1);
            clock.advanceSeconds(3);
            assertEquals("urgent-but-late", s.dispatchNext().job().payload(), policy.label());
        }
    }

    @Test
    void aJobAtTheHeadAnywayIsNotCountedAsPromoted() {
        Scheduler<String> s = scheduler(Policy.FCFS, Duration.ofSeconds(1), 100, 1);
        s.submit("only", 0, 10, 1);
        clock.advanceSeconds(2);
        Dispatch<String> d = s.dispatchNext();
        assertFalse(d.starvationPromoted());
        assertEquals(0, s.starvationPromotions());
    }

    @Test
    void queueIsBounded() {
        Scheduler<String> s = scheduler(Policy.SJF, Duration.ZERO, 2, 1);
        assertTrue(s.submit("a", 0, 10, 1).isPresent());
        assertTrue(s.submit("b", 0, 10, 1).isPresent());
        assertTrue(s.submit("c", 0, 10, 1).isEmpty());
        assertEquals(2, s.waitingCount());
        s.dispatchNext();
        assertTrue(s.submit("c", 0, 10, 1).isPresent(), "a dispatched job frees its queue place");
    }

    @Test
    void slotsLimitWhatIsInFlight() {
        Scheduler<String> s = scheduler(Policy.FCFS, Duration.ZERO, 100, 2);
        s.submit("a", 0, 10, 1);
        s.submit("b", 0, 10, 1);
        s.submit("c", 0, 10, 1);
        Dispatch<String> a = s.dispatchNext();
        Dispatch<String> b = s.dispatchNext();
        assertNull(s.dispatchNext(), "both slots are busy");
        assertEquals(2, s.busySlots());
        s.release(b);
        assertEquals("c", s.dispatchNext().job().payload());
        s.release(a);
        assertThrows(IllegalStateException.class, () -> s.release(a), "a slot is released exactly once");
    }

    @Test
    void cancelledJobsAreNeverSent() {
        Scheduler<String> s = scheduler(Policy.SJF, Duration.ofSeconds(1), 100, 1);
        Job<String> gone = s.submit("gone", 0, 10, 1).orElseThrow();
        s.submit("stays", 0, 500, 10);
        assertTrue(s.cancel(gone));
        assertFalse(s.cancel(gone));
        clock.advanceSeconds(5);
        assertEquals(List.of("stays"), drainOneByOne(s));
    }

    @Test
    void rejectsANonPositiveServiceTime() {
        Scheduler<String> s = scheduler(Policy.HRRN, Duration.ZERO, 100, 1);
        assertThrows(IllegalArgumentException.class, () -> s.submit("x", 0, 0, 0));
    }

    @Test
    void backlogIsWaitingWorkOverTheSlotsInForce() {
        Scheduler<String> s = scheduler(Policy.FCFS, Duration.ZERO, 100, 2);
        s.submit("a", 0, 10, 3);
        s.submit("b", 0, 10, 5);
        assertEquals(4.0, s.expectedBacklogSeconds(2), 1e-9);
        assertEquals(8.0, s.expectedBacklogSeconds(1), 1e-9, "an adaptive limit of one slot, or a pool with one member left");
        assertEquals(4.0, s.expectedBacklogSeconds(64), 1e-9, "never more slots than the settings'");
        assertEquals(8.0, s.expectedBacklogSeconds(0), 1e-9, "a pool with every member ejected: as if one");
    }

    @Test
    void aWaitingJobGivenABetterEstimateIsPlacedByItAndADispatchedOneIsNot() {
        for (Policy policy : List.of(Policy.SJF, Policy.HRRN, Policy.LAPS, Policy.EWSJF)) {
            Scheduler<String> s = scheduler(policy, Duration.ZERO, 100, 1);
            Job<String> first = s.submit("first", 0, 10, 0.2).orElseThrow();
            Job<String> guessedShort = s.submit("guessed-short", 0, 20, 0.4).orElseThrow();
            s.submit("medium", 0, 300, 6);
            Dispatch<String> running = s.dispatchNext();
            assertEquals("first", running.job().payload(), policy.label());
            s.resize(guessedShort, JobCost.ofAnswer(1000, 20));
            s.resize(first, JobCost.ofAnswer(5000, 100));
            assertEquals(10, first.expectedTokens(), "a dispatched job keeps its cost");
            assertEquals(1000, guessedShort.expectedTokens());
            assertEquals(2, s.waitingCount());
            clock.advanceSeconds(1);
            s.release(running);
            // ewsjf orders within a queue of similar sizes by arrival; with one queue still, the cost moves nothing.
            List<String> expected = policy == Policy.EWSJF ? List.of("guessed-short", "medium") : List.of("medium", "guessed-short");
            assertEquals(expected, drainOneByOne(s), policy.label());
        }
    }
}
