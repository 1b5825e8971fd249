package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.concurrent.DaemonThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SlotPermitsTest {

    @Test
    void idleSlotsAreTakenUntilNoneIsFree() {
        SlotPermits permits = new SlotPermits(2);
        assertTrue(permits.takeIdle());
        assertTrue(permits.takeIdle());
        assertFalse(permits.takeIdle(), "both slots are taken");
        assertEquals(2, permits.busy());
        assertFalse(permits.release(), "nobody is queued: the loop has nothing to do");
        assertEquals(1, permits.busy());
        assertTrue(permits.takeIdle());
    }

    @Test
    void slotsCutBelowThoseBusyAreGrantedAgainOnlyOnceEnoughCameBack() {
        SlotPermits permits = new SlotPermits(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(permits.takeIdle());
        }
        permits.limit(2);
        assertEquals(2, permits.limit());
        permits.enqueue();
        permits.release();
        permits.release();
        assertFalse(permits.takeForQueued(), "two of the two slots are still busy");
        permits.release();
        assertTrue(permits.takeForQueued());
        permits.limit(3);
        assertTrue(permits.takeIdle(), "the slot added is free at once");
        assertEquals(3, permits.busy());
        assertFalse(permits.takeIdle());
        permits.release();
        permits.release();
        permits.release();
        assertThrows(IllegalStateException.class, permits::release, "more released than taken, whatever the count");
        assertThrows(IllegalArgumentException.class, () -> permits.limit(0));
    }

    @Test
    void aQueuedJobKeepsAFreeSlotFromBeingTakenAtOnce() {
        SlotPermits permits = new SlotPermits(1);
        assertTrue(permits.takeIdle());
        permits.enqueue();
        assertTrue(permits.release(), "a job is queued: the loop should grant it the slot");
        assertFalse(permits.takeIdle(), "the slot is free, but the queued job came first");
        assertTrue(permits.takeForQueued());
        assertEquals(0, permits.queued());
        assertEquals(1, permits.busy());
        assertFalse(permits.takeForQueued() || permits.takeIdle(), "the only slot is the queued job's");
    }

    @Test
    void aJobThatLeavesTheQueueFreesTheWayForTheNext() {
        SlotPermits permits = new SlotPermits(1);
        permits.enqueue();
        assertFalse(permits.takeIdle());
        permits.dequeue();
        assertTrue(permits.takeIdle());
    }

    @Test
    void aQueuedJobWaitsForAFreeSlot() {
        SlotPermits permits = new SlotPermits(1);
        assertTrue(permits.takeIdle());
        permits.enqueue();
        assertFalse(permits.takeForQueued(), "no slot is free");
        assertEquals(1, permits.queued(), "the job still waits");
    }

    @Test
    void miscountsAreBugsThatChangeNothing() {
        SlotPermits permits = new SlotPermits(1);
        assertThrows(IllegalStateException.class, permits::release);
        assertThrows(IllegalStateException.class, permits::dequeue);
        assertThrows(IllegalStateException.class, permits::takeForQueued);
        assertEquals(0, permits.busy());
        assertEquals(0, permits.queued());
        assertThrows(IllegalArgumentException.class, () -> new SlotPermits(0));
    }

    /**
     * Threads take slots at once or queue for them while one thread, standing for the dispatch loop,
     * grants slots to queued jobs in their order; each holder gives its slot back. No more holders
     * than slots at any time, every queued job gets a slot, and everything is back at the end.
     */
    @Test
    void hammeredFromManyThreadsNoSlotIsGrantedTwiceOrLost() throws Exception {
        int slots = 3;
        int threads = 8;
        int rounds = 20_000;
        SlotPermits permits = new SlotPermits(slots);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger mostHolders = new AtomicInteger();
        AtomicReference<String> violation = new AtomicReference<>();
        ConcurrentLinkedQueue<CountDownLatch> queue = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        Runnable hold = () -> {
            int now = holders.incrementAndGet();
            mostHolders.accumulateAndGet(now, Math::max);
            if (now > slots) {
                violation.compareAndSet(null, now + " holders of " + slots + " slots");
            }
            holders.decrementAndGet();
        };
        Thread loop = new DaemonThreadFactory("loop").newThread(() -> {
            while (!stop.get() || !queue.isEmpty()) {
                CountDownLatch head = queue.peek();
                if (head != null && permits.takeForQueued()) {
                    queue.poll();
                    head.countDown();
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        loop.start();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            Thread worker = new DaemonThreadFactory("worker").newThread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        if (!permits.takeIdle()) {
                            CountDownLatch granted = new CountDownLatch(1);
                            permits.enqueue();
                            queue.add(granted);
                            if (!granted.await(30, TimeUnit.SECONDS)) {
                                violation.compareAndSet(null, "a queued job never got a slot");
                                return;
                            }
                        }
                        hold.run();
                        permits.release();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(worker.isAlive(), "a worker is stuck");
        }
        stop.set(true);
        loop.join(TimeUnit.SECONDS.toMillis(10));
        assertEquals(null, violation.get());
        assertEquals(0, permits.busy(), "every slot is back");
        assertEquals(0, permits.queued(), "nobody is left queued");
        assertTrue(mostHolders.get() >= 1);
    }
}
