package dev.triage.proxy.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Late binding over several backends: the fastest free one takes the job, and an ejected one's slots are not granted. */
class PoolSlotsTest {

    private static PoolSlots fastAndSlow(int fastSlots, int slowSlots) {
        return new PoolSlots(List.of(new PoolMember("slow", slowSlots, () -> 2.0), new PoolMember("fast", fastSlots, () -> 1.0)));
    }

    private static int take(PoolSlots pool) {
        assertTrue(pool.permits().takeIdle(), "a permit is free");
        return pool.bind();
    }

    @Test
    void theFastestBackendWithAFreeSlotTakesTheJobThenTheSlowerOnes() {
        PoolSlots pool = fastAndSlow(1, 1);
        assertEquals(1, take(pool), "the fast one first");
        assertEquals(0, take(pool), "the slow one once the fast one is full");
        assertFalse(pool.permits().takeIdle(), "both full");
        pool.unbind(1);
        assertEquals(1, take(pool), "the fast one again once it frees");
    }

    @Test
    void equallyFastBackendsTakeJobsByFewestRunning() {
        PoolSlots pool = new PoolSlots(List.of(new PoolMember("a", 2, () -> 1.0), new PoolMember("b", 2, () -> 1.0)));
        int first = take(pool);
        int second = take(pool);
        assertEquals(1, first + second, "one on each");
        assertEquals(1, pool.running(first), "each backend's learner hears the batch it ran, not the pool's");
        assertEquals(2, pool.permits().busy());
    }

    @Test
    void anEjectedBackendsSlotsAreNotGrantedAndItsRunningJobsFreeNone() {
        PoolSlots pool = fastAndSlow(2, 1);
        assertEquals(1, take(pool));
        assertTrue(pool.eject(1, 0));
        assertEquals(0, take(pool), "only the slow one is bound to");
        assertFalse(pool.permits().takeIdle(), "the fast one's free slot left the pool with it");
        assertFalse(pool.unbind(1), "its running job's slot does not come back");
        assertFalse(pool.permits().takeIdle());
        assertEquals(1, pool.permits().busy(), "only the slow one's job holds a slot of the pool");

        assertTrue(pool.readmit(1, 1));
        assertEquals(1, take(pool));
        assertEquals(1, take(pool));
        assertFalse(pool.permits().takeIdle());
        pool.unbind(0);
        pool.unbind(1);
        pool.unbind(1);
        assertEquals(0, pool.permits().busy(), "every slot back");
        assertEquals(0, pool.busy(0) + pool.busy(1));
    }

    @Test
    void theLastBackendInServiceIsNeverEjected() {
        PoolSlots pool = fastAndSlow(1, 1);
        assertTrue(pool.eject(0, 0));
        assertFalse(pool.eject(1, 0), "its requests fail with its own error rather than wait for none");
        assertTrue(pool.up(1));
        assertFalse(new PoolSlots(List.of(PoolMember.only("chat", 1))).eject(0, 0), "one backend is never ejected");
    }

    @Test
    void aPermitTakenBeforeAnEjectionIsBoundToTheEjectedBackendAndTheCountStaysRight() {
        PoolSlots pool = fastAndSlow(1, 1);
        assertEquals(1, take(pool));
        assertEquals(0, take(pool));
        pool.unbind(1);
        assertTrue(pool.permits().takeIdle(), "the fast one's slot, not bound yet");
        assertTrue(pool.eject(1, 0));
        assertEquals(1, pool.bind(), "the only slot there is: the call fails before sending and goes elsewhere");
        assertFalse(pool.permits().takeIdle());
        pool.unbind(1);
        pool.unbind(0);
        assertEquals(0, pool.permits().busy());
        assertTrue(pool.readmit(1, 1));
        assertEquals(1, take(pool));
        assertEquals(0, take(pool));
        assertFalse(pool.permits().takeIdle(), "two slots, no more");
    }

    @Test
    void aProbeSentBeforeTheBackendWasFoundDownDoesNotReadmitIt() {
        PoolSlots pool = fastAndSlow(1, 1);
        assertTrue(pool.eject(1, 200));
        assertFalse(pool.readmit(1, 100), "its pass was answered before the backend went down");
        assertFalse(pool.up(1));
        assertFalse(pool.readmit(1, 199));
        assertTrue(pool.readmit(1, 200), "a probe sent since passed");
        assertTrue(pool.up(1));

        assertTrue(pool.eject(0, Long.MAX_VALUE - 5));
        assertTrue(pool.readmit(0, Long.MIN_VALUE + 5), "nanoTime's wrap-around is later, not earlier");
    }
}
