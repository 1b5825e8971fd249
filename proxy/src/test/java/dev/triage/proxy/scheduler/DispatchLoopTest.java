package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.RunningTriage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DispatchLoopTest {

    private static final JobTag TAG = new JobTag("id", "chat");

    private final DispatchLoop loop = new DispatchLoop(Clock.system());
    /** Stands for a client connection's event loop: the submitter's own thread. */
    private final ExecutorService connection = Executors.newSingleThreadExecutor(new DaemonThreadFactory("connection"));

    @AfterEach
    void close() {
        loop.close();
        connection.shutdownNow();
    }

    /** Records what happened to one job; news heard anywhere but on the submitter's executor fails it. */
    private static final class Recorder implements JobListener {
        final CompletableFuture<Slot> slot = new CompletableFuture<>();
        final CompletableFuture<Refusal> refusal = new CompletableFuture<>();
        /** Its place in the queue and expected wait when admitted. */
        final CompletableFuture<List<Double>> admission = new CompletableFuture<>();

        @Override
        public void admitted(int position, double expectedWaitSeconds) {
            hear(admission, List.of((double) position, expectedWaitSeconds));
        }

        @Override
        public void dispatched(Slot s) {
            hear(slot, s);
        }

        @Override
        public void refused(Refusal r) {
            hear(refusal, r);
        }

        private static <T> void hear(CompletableFuture<T> news, T value) {
            String thread = Thread.currentThread().getName();
            if (thread.startsWith("connection-")) {
                news.complete(value);
            } else {
                news.completeExceptionally(new AssertionError("heard on " + thread + ", not on the submitter's executor"));
            }
        }
    }

    /**
     * A job's cost as a learner's model serves it: seconds = tokens × the rate of the model's version;
     * {@code afterCosting} runs as each costing ends, where a change the learner makes meanwhile lands.
     */
    private record Modelled(AtomicInteger modelVersion, double[] secondsPerToken, double tokens, Runnable afterCosting)
            implements CostSource {
        @Override
        public JobCost cost() {
            int now = modelVersion.get();
            afterCosting.run();
            return JobCost.ofAnswer(tokens, tokens * secondsPerToken[now]);
        }

        @Override
        public long version() {
            return modelVersion.get();
        }
    }

    /** Submits a job to {@code queue} and returns the slot it is granted: the only one of a serial queue, held. */
    private Slot holdTheSlot(BackendQueue queue) throws Exception {
        Recorder running = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, running);
        return running.slot.get(5, TimeUnit.SECONDS);
    }

    private BackendQueue serial(int maxQueue, Duration maxWait) {
        return loop.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, maxQueue, 1), maxWait);
    }

    /** A queue shared by two backends of one slot each, on {@code dispatchLoop}. */
    private static BackendQueue pairOfBackends(DispatchLoop dispatchLoop, SchedulerSettings settings) {
        return dispatchLoop.addBackend("pool", settings, EwsjfSettings.defaults(), Duration.ZERO, null,
                List.of(new PoolMember("a", 1, () -> 1.0), new PoolMember("b", 1, () -> 1.0)));
    }

    /** Holds every slot it is granted, and hears every pause it is asked for. */
    private static final class Holder implements JobListener {
        final BlockingQueue<Slot> grants = new LinkedBlockingQueue<>();
        final BlockingQueue<Slot> pausesAsked = new LinkedBlockingQueue<>();

        @Override
        public void dispatched(Slot slot) {
            grants.add(slot);
        }

        @Override
        public void refused(Refusal refusal) {}

        @Override
        public void pauseRequested(Slot slot) {
            pausesAsked.add(slot);
        }
    }

    @Test
    void releasingASlotSendsTheNextJobInPolicyOrder() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Recorder first = new Recorder();
        queue.submit(TAG, 0, 1000, 20, connection, first);
        Slot running = first.slot.get(5, TimeUnit.SECONDS);
        BlockingQueue<String> order = new LinkedBlockingQueue<>();
        for (String name : List.of("long", "short", "medium")) {
            double seconds = switch (name) { case "short" -> 1; case "medium" -> 5; default -> 20; };
            queue.submit(TAG, 0, seconds * 50, seconds, connection, new JobListener() {
                @Override
                public void dispatched(Slot slot) {
                    order.add(name);
                    slot.release();
                }

                @Override
                public void refused(Refusal refusal) {
                    order.add("refused " + name);
                }
            });
        }
        running.release();
        running.release(); // a second release is harmless
        assertEquals("short", order.poll(5, TimeUnit.SECONDS));
        assertEquals("medium", order.poll(5, TimeUnit.SECONDS));
        assertEquals("long", order.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void aSlotForASubmitterWhoseExecutorHasStoppedIsReleased() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        ExecutorService stopped = Executors.newSingleThreadExecutor();
        stopped.shutdown();
        Recorder gone = new Recorder();
        queue.submit(TAG, 0, 10, 1, stopped, gone);
        Recorder next = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, next);
        next.slot.get(5, TimeUnit.SECONDS).release();
        Await.until("every slot free", () -> queue.busySlots() == 0);
        assertFalse(gone.slot.isDone());
    }

    @Test
    void fullQueueRefusesWithARetryHint() throws Exception {
        BackendQueue queue = serial(1, Duration.ZERO);
        holdTheSlot(queue);
        queue.submit(TAG, 0, 100, 7.5, connection, new Recorder());
        Recorder third = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, third);
        Refusal refusal = third.refusal.get(5, TimeUnit.SECONDS);
        assertEquals(Refusal.Reason.QUEUE_FULL, refusal.reason());
        assertEquals(8, refusal.retryAfterSeconds());
    }

    /** Two backends of one slot, one of them ejected: the waiting work is over the one slot left. */
    @Test
    void aFullQueuesRetryHintCountsOnlyTheSlotsInForce() throws Exception {
        BackendQueue queue = pairOfBackends(loop, new SchedulerSettings(Policy.SJF, Duration.ZERO, 1, 2));
        queue.eject(1);
        holdTheSlot(queue);
        queue.submit(TAG, 0, 100, 7.5, connection, new Recorder());
        Recorder third = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, third);
        assertEquals(8, third.refusal.get(5, TimeUnit.SECONDS).retryAfterSeconds(), "7.5 s over one slot, not over two");
    }

    /** A run on an ejected backend keeps its stream: pausing it would free no slot for the job that waits. */
    @Test
    void underLapsARunOnAnEjectedBackendIsNotPaused() throws Exception {
        ManualClock clock = new ManualClock();
        LapsSettings laps = new LapsSettings(3, 2, 1, 4, 0, 0.1, 2, 1);
        try (DispatchLoop simulated = new DispatchLoop(clock)) {
            BackendQueue queue = pairOfBackends(simulated, new SchedulerSettings(Policy.LAPS, Duration.ZERO, 10, 2, laps));
            Holder holder = new Holder();
            queue.submit(TAG, 0, JobCost.ofAnswer(100, 10), true, connection, holder);
            Slot served = holder.grants.poll(5, TimeUnit.SECONDS);
            queue.submit(TAG, 0, JobCost.ofAnswer(100, 10), true, connection, holder);
            Slot other = holder.grants.poll(5, TimeUnit.SECONDS);
            assertNotNull(served);
            assertNotNull(other);
            served.progress(1);
            clock.advanceSeconds(1.5);
            served.progress(20); // past its first level's second: moved down, a candidate for a pause
            queue.eject(served.backend());

            queue.submit(TAG, 0, JobCost.ofAnswer(100, 10), true, connection, holder);
            RunningTriage.awaitWaiting(queue, 1); // admitted: any pause it called for is on its way to the holder
            connection.submit(() -> { }).get(5, TimeUnit.SECONDS); // and has reached it
            assertNull(holder.pausesAsked.poll(), "its backend is ejected");

            queue.readmit(served.backend(), System.nanoTime());
            queue.submit(TAG, 0, JobCost.ofAnswer(100, 10), true, connection, holder);
            assertSame(served, holder.pausesAsked.poll(5, TimeUnit.SECONDS), "back in service, it is paused for the new job");
        }
    }

    @Test
    void cancelledWaiterIsNeverDispatched() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Slot slot = holdTheSlot(queue);
        Recorder gone = new Recorder();
        Ticket ticket = queue.submit(TAG, 0, 10, 1, connection, gone);
        Recorder after = new Recorder();
        queue.submit(TAG, 0, 500, 10, connection, after);
        ticket.cancel();
        slot.release();
        after.slot.get(5, TimeUnit.SECONDS);
        assertFalse(gone.slot.isDone());
        assertFalse(gone.refusal.isDone());
    }

    /**
     * Two jobs wait, costed by models that then change: one costed cheaper by the newer model would
     * jump ahead of one costed by the older if only new arrivals saw it. The queue costs both again,
     * so they are compared by the same model, and a better estimate moves a job too.
     */
    @Test
    void waitingJobsAreCostedAgainWhenTheirModelsChangeOrABetterEstimateArrives() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Slot slot = holdTheSlot(queue);
        AtomicInteger version = new AtomicInteger();
        double[] secondsPerToken = {0.1, 0.01}; // tenfold less at version 1
        Recorder costedEarly = new Recorder();
        queue.submit(TAG, 0, new Modelled(version, secondsPerToken, 100, () -> { }), false, connection, costedEarly);
        RunningTriage.awaitWaiting(queue, 1); // costed at admission, before the model changes
        version.set(1);
        Recorder costedLate = new Recorder();
        queue.submit(TAG, 0, new Modelled(version, secondsPerToken, 500, () -> { }), false, connection, costedLate);
        Recorder resized = new Recorder();
        Ticket ticket = queue.submit(TAG, 0, new Modelled(version, secondsPerToken, 1000, () -> { }), false, connection, resized);
        ticket.resize(new Modelled(version, secondsPerToken, 50, () -> { }));
        slot.release();
        resized.slot.get(5, TimeUnit.SECONDS).release();
        costedEarly.slot.get(5, TimeUnit.SECONDS).release();
        costedLate.slot.get(5, TimeUnit.SECONDS);
        assertFalse(costedLate.slot.isCompletedExceptionally());
    }

    /**
     * The learner moves on its own thread, so a model can change while the loop costs the waiting jobs
     * again: every job is costed by the same model before the next one is chosen.
     */
    @Test
    void aModelThatChangesInTheMiddleOfARecostingCostsEveryJobAgainBeforeTheNextDispatch() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Slot slot = holdTheSlot(queue);
        AtomicInteger version = new AtomicInteger();
        AtomicBoolean changeAfterNextCosting = new AtomicBoolean();
        double[] secondsPerToken = {0.1, 0.01, 0.001};
        Runnable nextChange = () -> {
            if (version.get() == 1 && changeAfterNextCosting.compareAndSet(true, false)) {
                version.set(2); // the learner's next change, landing just after this job was costed
            }
        };
        Recorder first = new Recorder();
        queue.submit(TAG, 0, new Modelled(version, secondsPerToken, 100, nextChange), false, connection, first);
        Recorder second = new Recorder();
        queue.submit(TAG, 0, new Modelled(version, secondsPerToken, 100, nextChange), false, connection, second);
        RunningTriage.awaitWaiting(queue, 2);
        changeAfterNextCosting.set(true);
        version.set(1);
        slot.release();
        CompletableFuture.anyOf(first.slot, second.slot).get(5, TimeUnit.SECONDS);
        assertTrue(first.slot.isDone() && !second.slot.isDone(), "the same cost, and the first came first");
    }

    @Test
    void waitBeyondTheLimitIsRefused() throws Exception {
        BackendQueue queue = serial(10, Duration.ofMillis(50));
        holdTheSlot(queue);
        Recorder waiting = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, waiting);
        assertEquals(Refusal.Reason.QUEUE_TIMEOUT, waiting.refusal.get(5, TimeUnit.SECONDS).reason());
        assertFalse(waiting.slot.isDone());
    }

    @Test
    void theQueueWaitLimitIsADeadlineOnTheInjectedClock() throws Exception {
        ManualClock clock = new ManualClock();
        try (DispatchLoop simulated = new DispatchLoop(clock)) {
            // An hour on the manual clock: the loop's own wake-up, in real time, never comes during the test.
            BackendQueue queue = simulated.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, 10, 1),
                    Duration.ofHours(1));
            Slot slot = holdTheSlot(queue);
            Recorder overdue = new Recorder();
            queue.submit(TAG, 0, 10, 1, connection, overdue);
            queue.snapshot().get(5, TimeUnit.SECONDS); // admitted, its arrival stamped, before the clock moves
            clock.advance(Duration.ofHours(1).minusNanos(1));
            Recorder later = new Recorder();
            queue.submit(TAG, 0, 10, 1, connection, later);
            queue.snapshot().get(5, TimeUnit.SECONDS); // every task posted so far has run
            assertFalse(overdue.refusal.isDone(), "refused before its hour was up");

            clock.advance(Duration.ofNanos(1));
            slot.release();
            assertEquals(Refusal.Reason.QUEUE_TIMEOUT, overdue.refusal.get(5, TimeUnit.SECONDS).reason());
            later.slot.get(5, TimeUnit.SECONDS); // the freed slot goes past the overdue job
            assertFalse(overdue.slot.isDone());
            assertEquals(0, queue.snapshot().get(5, TimeUnit.SECONDS).waiting().size());
        }
    }

    @Test
    void eachWaitingJobsExpectedStartAndFinishFollowFromTheJobsAheadOfIt() throws Exception {
        ManualClock clock = new ManualClock();
        try (DispatchLoop simulated = new DispatchLoop(clock)) {
            BackendQueue queue = busyForThreeAndNineSeconds(simulated, clock, new Recorder(), new Recorder());
            queue.submit(TAG, 0, 100, 6, connection, new Recorder());
            queue.submit(TAG, 0, 100, 2, connection, new Recorder());
            List<QueueSnapshot.Waiting> waiting = queue.snapshot().get(5, TimeUnit.SECONDS).waiting();
            // Slots free in 3 s (4 s job, 1 s in) and 9 s; SJF sends the 2 s job first, then the 6 s one.
            assertEquals(List.of(2.0, 6.0), waiting.stream().map(QueueSnapshot.Waiting::expectedSeconds).toList());
            assertEquals(3, waiting.get(0).expectedStartSeconds(), 1e-9);
            assertEquals(5, waiting.get(0).expectedFinishSeconds(), 1e-9);
            assertEquals(5, waiting.get(1).expectedStartSeconds(), 1e-9);
            assertEquals(11, waiting.get(1).expectedFinishSeconds(), 1e-9);
        }
    }

    /**
     * An SJF queue of 2 slots whose jobs of 10 s ({@code first}) and 4 s ({@code second}) have run for
     * 1 s by the clock: its slots are expected to free in 3 s and 9 s.
     */
    private BackendQueue busyForThreeAndNineSeconds(DispatchLoop simulated, ManualClock clock, Recorder first, Recorder second)
            throws Exception {
        BackendQueue queue = simulated.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, 10, 2), Duration.ZERO);
        queue.submit(TAG, 0, 100, 10, connection, first);
        queue.submit(TAG, 0, 100, 4, connection, second);
        second.slot.get(5, TimeUnit.SECONDS);
        first.slot.get(5, TimeUnit.SECONDS);
        clock.advance(Duration.ofSeconds(1));
        return queue;
    }

    @Test
    void aJobThatWaitsHearsItsPlaceAndExpectedWaitAtAdmission() throws Exception {
        ManualClock clock = new ManualClock();
        try (DispatchLoop simulated = new DispatchLoop(clock)) {
            Recorder first = new Recorder();
            Recorder second = new Recorder();
            BackendQueue queue = busyForThreeAndNineSeconds(simulated, clock, first, second);
            Recorder longer = new Recorder();
            Recorder shorter = new Recorder();
            Recorder longest = new Recorder();
            queue.submit(TAG, 0, 100, 6, connection, longer);
            queue.submit(TAG, 0, 100, 2, connection, shorter);
            queue.submit(TAG, 0, 100, 8, connection, longest);
            // Slots free in 3 s and 9 s. Each hears the queue as it stood when it came: the 6 s job first
            // in line; the 2 s job first too (SJF), still starting in 3 s; the 8 s job third, after both.
            assertEquals(List.of(1.0, 3.0), longer.admission.get(5, TimeUnit.SECONDS));
            assertEquals(List.of(1.0, 3.0), shorter.admission.get(5, TimeUnit.SECONDS));
            assertEquals(List.of(3.0, 9.0), longest.admission.get(5, TimeUnit.SECONDS));
            assertEquals(List.of(0.0, 0.0), first.admission.get(5, TimeUnit.SECONDS), "sent at once");
            assertEquals(List.of(0.0, 0.0), second.admission.get(5, TimeUnit.SECONDS), "sent at once");
        }
    }

    @Test
    void aJobBehindMoreJobsThanTheQueueOrdersForANewcomerIsToldNothing() throws Exception {
        BackendQueue queue = serial(BackendQueue.ORDERED_AT_ADMISSION + 10, Duration.ZERO);
        Recorder running = new Recorder();
        queue.submit(TAG, 0, 100, 10, connection, running);
        running.slot.get(5, TimeUnit.SECONDS);
        List<Recorder> waiting = new ArrayList<>();
        for (int i = 0; i <= BackendQueue.ORDERED_AT_ADMISSION; i++) {
            Recorder recorder = new Recorder();
            waiting.add(recorder);
            queue.submit(TAG, 0, 100, 10, connection, recorder);
        }
        Recorder lastOrdered = waiting.get(BackendQueue.ORDERED_AT_ADMISSION - 1);
        List<Double> told = lastOrdered.admission.get(5, TimeUnit.SECONDS);
        assertEquals(BackendQueue.ORDERED_AT_ADMISSION, told.get(0), 0, "equal jobs: the last in line");
        // After the running 10 s job (less the moments it has run) and the 10 s jobs ahead.
        assertEquals(10.0 * BackendQueue.ORDERED_AT_ADMISSION, told.get(1), 5);
        queue.snapshot().get(5, TimeUnit.SECONDS); // the loop has admitted every job
        connection.submit(() -> { }).get(5, TimeUnit.SECONDS); // and the connection has heard all it was told
        assertFalse(waiting.get(BackendQueue.ORDERED_AT_ADMISSION).admission.isDone());
    }

    @Test
    void refuseAllAnswersTheWaitingAndLaterJobs() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Recorder running = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, running);
        running.slot.get(5, TimeUnit.SECONDS);
        Recorder waiting = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, waiting);
        loop.refuseAll();
        assertEquals(Refusal.Reason.SHUTTING_DOWN, waiting.refusal.get(5, TimeUnit.SECONDS).reason());
        Recorder late = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, late);
        assertEquals(Refusal.Reason.SHUTTING_DOWN, late.refusal.get(5, TimeUnit.SECONDS).reason());
        running.slot.get().release();
        Await.until("the running job's slot back", () -> queue.busySlots() == 0);
        assertNull(queue.takeIdleSlot(), "a stopped queue grants no slot at once either");
    }

    @Test
    void aFreeSlotWithNobodyWaitingIsTakenAtOnce() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Slot idle = queue.takeIdleSlot();
        assertNotNull(idle);
        assertEquals(0, idle.queuedNanos());
        assertEquals(1, queue.busySlots());
        assertNull(queue.takeIdleSlot(), "the only slot is taken");
        Recorder waiting = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, waiting);
        assertEquals(1, queue.waitingCount());
        assertEquals(1, queue.snapshot().get(5, TimeUnit.SECONDS).waiting().size());
        idle.release();
        idle.release();
        Slot next = waiting.slot.get(5, TimeUnit.SECONDS);
        assertEquals(0, queue.waitingCount());
        assertEquals(1, queue.busySlots(), "a slot released twice is freed once");
        next.release();
        Await.until("the slot free again", () -> queue.busySlots() == 0);
        assertNotNull(queue.takeIdleSlot());
    }

    /**
     * The race that matters, made to happen: a slot frees while a job that came earlier is still on its
     * way to the queue (the loop has not seen it yet). A later arrival must not take the slot at once.
     */
    @Test
    void aJobOnItsWayToTheQueueKeepsTheFreedSlotFromLaterArrivals() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        Slot idle = queue.takeIdleSlot();
        CountDownLatch loopHeld = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        loop.execute(() -> {
            loopHeld.countDown();
            awaitQuietly(resume);
        });
        assertTrue(loopHeld.await(5, TimeUnit.SECONDS));
        Recorder earlier = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, earlier);
        idle.release();
        assertEquals(0, queue.busySlots());
        assertNull(queue.takeIdleSlot(), "a later arrival took the slot that the earlier job is owed");
        assertEquals(1, queue.waitingCount());
        resume.countDown();
        Slot granted = earlier.slot.get(5, TimeUnit.SECONDS);
        assertEquals(1, queue.busySlots());
        assertNull(queue.takeIdleSlot());
        granted.release();
        Await.until("the slot free again", () -> queue.busySlots() == 0);
        assertNotNull(queue.takeIdleSlot());
    }

    /**
     * Many threads take slots at once or queue for them, some withdrawing at once; at no time do more
     * jobs hold a slot than there are slots, every job that stayed gets one, and at the end every slot
     * is free and nobody waits.
     */
    @Test
    void hammeredNoSlotIsGrantedTwiceOrLeaked() throws Exception {
        int slots = 2;
        BackendQueue queue = loop.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, 100_000, slots),
                Duration.ZERO);
        int threads = 6;
        int rounds = 3_000;
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger mostHolders = new AtomicInteger();
        AtomicInteger stayed = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        Runnable hold = () -> mostHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
        ExecutorService workers = Executors.newFixedThreadPool(threads, new DaemonThreadFactory("worker"));
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            done.add(workers.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    Slot idle = queue.takeIdleSlot();
                    if (idle != null) {
                        hold.run();
                        holders.decrementAndGet();
                        idle.release();
                        continue;
                    }
                    // A job to withdraw may still be dispatched before its withdrawal: it holds its slot then too.
                    boolean withdraw = (i + seed) % 5 == 0;
                    Ticket ticket = queue.submit(TAG, 0, i % 7, 1 + i % 3, Runnable::run, new JobListener() {
                        @Override
                        public void dispatched(Slot slot) {
                            hold.run();
                            holders.decrementAndGet();
                            if (!withdraw) {
                                served.incrementAndGet();
                            }
                            slot.release();
                        }

                        @Override
                        public void refused(Refusal refusal) {}
                    });
                    if (withdraw) {
                        ticket.cancel();
                    } else {
                        stayed.incrementAndGet();
                    }
                }
            }));
        }
        for (Future<?> worker : done) {
            worker.get(60, TimeUnit.SECONDS);
        }
        workers.shutdown();
        Await.until("every job that stayed served", Duration.ofSeconds(30), () -> served.get() == stayed.get());
        Await.until("every slot free and nobody waiting", () -> queue.busySlots() == 0 && queue.waitingCount() == 0);
        assertTrue(mostHolders.get() <= slots, mostHolders.get() + " holders of " + slots + " slots");
        assertEquals(0, queue.snapshot().get(5, TimeUnit.SECONDS).waiting().size());
        assertNotNull(queue.takeIdleSlot());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aListenerThatThrowsDoesNotKeepTheSlot() throws Exception {
        BackendQueue queue = serial(10, Duration.ZERO);
        queue.submit(TAG, 0, 10, 1, connection, new JobListener() {
            @Override
            public void dispatched(Slot slot) {
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void refused(Refusal refusal) {}
        });
        Recorder next = new Recorder();
        queue.submit(TAG, 0, 10, 1, connection, next);
        assertTrue(next.slot.get(5, TimeUnit.SECONDS) != null);
    }

    @Test
    void underLapsNoSlotIsTakenAtOnceAndAPausedJobFreesItsSlotAndWaitsAgain() throws Exception {
        BackendQueue queue = loop.addBackend("chat", new SchedulerSettings(Policy.LAPS, Duration.ZERO, 10, 1),
                Duration.ZERO);
        assertNull(queue.takeIdleSlot(), "a free slot is taken at once though laps must see every job");
        Holder holder = new Holder();
        BlockingQueue<Slot> grants = holder.grants;
        queue.submit(TAG, 0, JobCost.ofAnswer(100, 1), true, connection, holder);
        Slot running = grants.poll(5, TimeUnit.SECONDS);
        assertNotNull(running);
        queue.submit(TAG, 0, JobCost.ofAnswer(100, 1), false, connection, holder);
        RunningTriage.awaitWaiting(queue, 1);

        running.pause(5);
        Slot next = grants.poll(5, TimeUnit.SECONDS);
        assertNotNull(next, "the paused job's slot went to no one");
        assertEquals(1, queue.busySlots());
        assertEquals(1, queue.waitingCount(), "the paused job does not count as waiting again");
        next.release();
        Slot last = grants.poll(5, TimeUnit.SECONDS);
        assertNotNull(last);
        assertTrue(next.resumes() != last.resumes(), "exactly one of the later grants resumes the paused job");
        last.release();
        Await.until("every slot free and nobody waiting", () -> queue.busySlots() == 0 && queue.waitingCount() == 0);
        assertEquals(1, queue.pauses());
        assertEquals(1, queue.resumes());
    }
}
