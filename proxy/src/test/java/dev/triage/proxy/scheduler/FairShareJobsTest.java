package dev.triage.proxy.scheduler;

import static dev.triage.proxy.scheduler.Dispatches.drainOneByOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FairShareJobsTest {

    /** A job of the test: its tenant and its name. */
    private record Request(String tenant, String name) {}

    private final ManualClock clock = new ManualClock();
    private final TenantLedger ledger = new TenantLedger(Set.of(), 16);

    private Scheduler<Request> scheduler(Policy policy, TenantWeights weights, Duration tau, int slots) {
        SchedulerSettings settings = new SchedulerSettings(policy, tau, 100_000, slots);
        return new Scheduler<>(settings, clock, new FairShareJobs<>(policy, Request::tenant, weights, tau.toNanos(), ledger));
    }

    private static void submit(Scheduler<Request> scheduler, String tenant, String name, double seconds) {
        scheduler.submit(new Request(tenant, name), 0, seconds * 50, seconds);
    }

    /**
     * Runs a serial backend on the fake clock until {@code until} seconds: each job runs its expected
     * seconds; the steady tenant sends a job of {@code steadySeconds} every {@code steadyEvery} seconds.
     */
    private void serveSerially(Scheduler<Request> scheduler, double until, double steadySeconds, double steadyEvery) {
        long start = clock.nanoTime();
        double nextSteady = 0;
        int sent = 0;
        while ((clock.nanoTime() - start) / 1e9 < until) {
            double now = (clock.nanoTime() - start) / 1e9;
            while (nextSteady <= now) {
                submit(scheduler, "steady", "steady-" + sent++, steadySeconds);
                nextSteady += steadyEvery;
            }
            Dispatch<Request> running = scheduler.dispatchNext();
            if (running == null) {
                clock.advanceSeconds(nextSteady - now);
                continue;
            }
            clock.advanceSeconds(running.job().expectedSeconds());
            scheduler.release(running);
        }
    }

    private double served(String tenant) {
        TenantLedger.Account account = ledger.account(tenant);
        return account == null ? 0 : account.servedSeconds();
    }

    @Test
    void aFloodingTenantCannotPushASteadyOneBelowItsShare() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.EQUAL, Duration.ofSeconds(60), 1);
        for (int i = 0; i < 2_000; i++) {
            submit(scheduler, "flood", "flood-" + i, 0.5); // shorter than the steady tenant's jobs, and first
        }
        serveSerially(scheduler, 600, 1.0, 1.25); // the steady tenant asks for 80% of the backend
        double steadyShare = served("steady") / (served("steady") + served("flood"));
        assertTrue(steadyShare >= 0.49 && steadyShare <= 0.51, "steady tenant's share " + steadyShare);
    }

    @Test
    void aTenantThatAsksLessThanItsShareIsServedAllItAsks() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.EQUAL, Duration.ofSeconds(60), 1);
        for (int i = 0; i < 2_000; i++) {
            submit(scheduler, "flood", "flood-" + i, 0.5);
        }
        serveSerially(scheduler, 600, 2.0, 10); // 20% of the backend
        assertEquals(120, served("steady"), 2.0 + 1e-9);
        assertEquals(600, served("steady") + served("flood"), 1.0);
    }

    @Test
    void weightsShareTheBackendInTheirRatio() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.parse("a=3"), Duration.ZERO, 2);
        for (int i = 0; i < 1_000; i++) {
            submit(scheduler, "a", "a-" + i, 1 + i % 3);
            submit(scheduler, "b", "b-" + i, 1 + i % 2);
        }
        List<Dispatch<Request>> running = new ArrayList<>();
        for (int step = 0; step < 400; step++) {
            Dispatch<Request> next;
            while ((next = scheduler.dispatchNext()) != null) {
                running.add(next);
            }
            // Two slots: the running job that ends first ends now.
            Dispatch<Request> first = running.stream()
                    .min((x, y) -> Long.compare(endOf(x), endOf(y))).orElseThrow();
            clock.advance(Duration.ofNanos(Math.max(0, endOf(first) - clock.nanoTime())));
            running.remove(first);
            scheduler.release(first);
        }
        double ratio = served("a") / served("b");
        assertTrue(ratio > 2.8 && ratio < 3.2, "a:b " + ratio);
    }

    private static long endOf(Dispatch<Request> dispatch) {
        return dispatch.dispatchedNanos() + (long) (dispatch.job().expectedSeconds() * 1e9);
    }

    @Test
    void eachTenantsJobsGoShortestFirst() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.EQUAL, Duration.ZERO, 1);
        submit(scheduler, "a", "a-long", 4);
        submit(scheduler, "a", "a-short", 1);
        submit(scheduler, "a", "a-medium", 2);
        submit(scheduler, "b", "b-medium", 2);
        submit(scheduler, "b", "b-short", 1);
        List<String> order = drainOneByOne(scheduler).stream().map(Request::name).toList();
        assertEquals(List.of("a-short", "a-medium", "a-long"), order.stream().filter(n -> n.startsWith("a")).toList());
        assertEquals(List.of("b-short", "b-medium"), order.stream().filter(n -> n.startsWith("b")).toList());
        // Virtual finish times: a-short 1, b-short 1 (later), a-medium 3, b-medium 3 (later), a-long 7.
        assertEquals(List.of("a-short", "b-short", "a-medium", "b-medium", "a-long"), order);
    }

    @Test
    void theQueueViewShowsTheOrderOfDispatch() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.parse("b=2"), Duration.ZERO, 1);
        submit(scheduler, "a", "a-1", 1);
        submit(scheduler, "a", "a-2", 1);
        submit(scheduler, "b", "b-1", 1);
        submit(scheduler, "b", "b-2", 1);
        submit(scheduler, "b", "b-3", 1);
        List<String> shown = scheduler.waitingInDispatchOrder().stream().map(job -> job.payload().name()).toList();
        assertEquals(shown, drainOneByOne(scheduler).stream().map(Request::name).toList());
    }

    @Test
    void theStarvationTimeoutOrdersATenantsOwnJobsOnly() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.EQUAL, Duration.ofSeconds(10), 1);
        submit(scheduler, "a", "a-old-long", 5);
        clock.advanceSeconds(20);
        submit(scheduler, "a", "a-short", 1);
        submit(scheduler, "b", "b-short", 1);
        // a's old job has waited past τ: it goes before a's short one, but its 5 s put b's 1 s first.
        List<String> order = drainOneByOne(scheduler).stream().map(Request::name).toList();
        assertEquals(List.of("b-short", "a-old-long", "a-short"), order);
        assertEquals(1, scheduler.starvationPromotions(), "a's old job went ahead of a's own order; b's went in order");
    }

    @Test
    void aTenantIsNotOwedTheTimeItLeftUnused() {
        Scheduler<Request> scheduler = scheduler(Policy.FCFS, TenantWeights.EQUAL, Duration.ZERO, 1);
        for (int i = 0; i < 100; i++) {
            submit(scheduler, "early", "early-" + i, 1);
        }
        serveSerially(scheduler, 50, 1, 1e9); // early runs alone, bar one steady job
        for (int i = 0; i < 100; i++) {
            submit(scheduler, "late", "late-" + i, 1);
        }
        double earlyBefore = served("early");
        double lateBefore = served("late");
        serveSerially(scheduler, 40, 1, 1e9);
        double early = served("early") - earlyBefore;
        double late = served("late") - lateBefore;
        assertTrue(Math.abs(early - late) <= 2, "early " + early + " s, late " + late + " s once both wait");
    }

    @Test
    void refusesPoliciesThatAreNotOneOrderOverJobs() {
        for (Policy policy : List.of(Policy.LAPS, Policy.EWSJF)) {
            assertThrows(IllegalArgumentException.class,
                    () -> new FairShareJobs<Request>(policy, Request::tenant, TenantWeights.EQUAL, 0, ledger));
        }
    }

    @Test
    void aCancelledJobIsNeitherSentNorCharged() {
        Scheduler<Request> scheduler = scheduler(Policy.SJF, TenantWeights.EQUAL, Duration.ZERO, 1);
        Job<Request> gone = scheduler.submit(new Request("a", "a-gone"), 0, 10, 1).orElseThrow();
        submit(scheduler, "a", "a-kept", 2);
        submit(scheduler, "b", "b", 2);
        assertTrue(scheduler.cancel(gone));
        assertEquals(2, scheduler.waitingCount());
        assertEquals(List.of("a-kept", "b"), drainOneByOne(scheduler).stream().map(Request::name).toList());
    }
}
