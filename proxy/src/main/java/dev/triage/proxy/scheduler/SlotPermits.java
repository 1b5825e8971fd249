package dev.triage.proxy.scheduler;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One backend's slots as a lock-free count, shared by the two ways a request gets one: at once on
 * its own thread when a slot is free and nobody waits ({@link #takeIdle}), or from the
 * {@link DispatchLoop} for a job that queued ({@link #takeForQueued}). Both take from one word that
 * holds the free slots and the queued jobs together, so that a compare-and-set decides each grant:
 * no slot is ever granted twice, and nobody takes a slot at once while a job that came earlier
 * still waits for one.
 *
 * <p>A job counts as queued from {@link #enqueue} until it gets a slot or leaves ({@link #dequeue}):
 * the loop may not have seen it yet, but it already holds back the jobs behind it.
 *
 * <pre>{@code
 * if (permits.takeIdle()) { ... }            // a slot, with no one waiting before us
 * else { permits.enqueue(); ... }            // the loop grants one later: takeForQueued()
 * if (permits.release()) { ... }             // true: someone queued, the loop should look
 * }</pre>
 */
final class SlotPermits {

    private static final long QUEUED_MASK = 0xFFFF_FFFFL;

    /**
     * How many slots there are; changed only by the dispatch loop ({@link #limit(int)}), or, for a
     * queue shared by several backends, as a backend leaves and rejoins ({@link #withdraw}, {@link #restore}).
     */
    private volatile int slots;
    /**
     * Free slots in the high 32 bits, queued jobs in the low 32. Free slots go below zero when the
     * slots are cut while more than the new count are busy: none is granted until enough come back.
     */
    private final AtomicLong state;

    SlotPermits(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= 1)");
        }
        this.slots = slots;
        this.state = new AtomicLong(pack(slots, 0));
    }

    /** How many slots there are now. */
    int limit() {
        return slots;
    }

    /**
     * Sets how many slots there are, from the one thread that changes it. Slots taken stay taken: a
     * cut takes effect as they come back.
     */
    void limit(int newSlots) {
        if (newSlots < 1) {
            throw new IllegalArgumentException("slots: " + newSlots + " (expected: >= 1)");
        }
        int change = newSlots - slots;
        // In the order that keeps release()'s check true while the two differ: the count before the
        // free slots when it grows, after when it shrinks.
        if (change > 0) {
            slots = newSlots;
            state.addAndGet((long) change << 32);
        } else if (change < 0) {
            state.addAndGet((long) change << 32);
            slots = newSlots;
        }
    }

    /** Takes a slot when one is free and no job is queued; false otherwise, and nothing changes. */
    boolean takeIdle() {
        while (true) {
            long current = state.get();
            if (queued(current) != 0 || free(current) <= 0) {
                return false;
            }
            if (state.compareAndSet(current, current - pack(1, 0))) {
                return true;
            }
        }
    }

    /** Counts a job that will wait for a slot from the loop. */
    void enqueue() {
        state.incrementAndGet();
    }

    /** Uncounts a queued job that leaves without a slot (refused, withdrawn, timed out). */
    void dequeue() {
        while (true) {
            long current = state.get();
            if (queued(current) == 0) {
                throw new IllegalStateException("no job is queued");
            }
            if (state.compareAndSet(current, current - pack(0, 1))) {
                return;
            }
        }
    }

    /** Takes a slot for a queued job, which stops counting as queued; false when no slot is free. */
    boolean takeForQueued() {
        while (true) {
            long current = state.get();
            if (free(current) <= 0) {
                return false;
            }
            if (queued(current) == 0) {
                throw new IllegalStateException("no job is queued");
            }
            if (state.compareAndSet(current, current - pack(1, 1))) {
                return true;
            }
        }
    }

    /** Gives a slot back; true when jobs are queued, so that the loop should grant it to one. */
    boolean release() {
        while (true) {
            long current = state.get();
            if (free(current) >= slots) {
                throw new IllegalStateException("more slots released than taken");
            }
            if (state.compareAndSet(current, current + pack(1, 0))) {
                return queued(current) != 0;
            }
        }
    }

    /**
     * Takes {@code count} slots out of the pool, of which {@code free} are free now: a backend's slots
     * that are no longer bound to. Its busy slots are not given back when they free.
     */
    void withdraw(int count, int free) {
        // As in limit(int): the free slots first when they shrink, so release()'s check holds meanwhile.
        state.addAndGet(-((long) free << 32));
        slots -= count;
    }

    /** Puts {@code count} slots back into the pool, of which {@code free} are free now. */
    void restore(int count, int free) {
        slots += count;
        state.addAndGet((long) free << 32);
    }

    /**
     * Frees the slot a permit was taken for, when the permit was bound to a slot of a withdrawn
     * backend instead (counted out of the pool already).
     */
    void returnUnbound() {
        state.addAndGet(pack(1, 0));
    }

    int busy() {
        return slots - free(state.get());
    }

    int queued() {
        return queued(state.get());
    }

    private static long pack(int free, int queued) {
        return ((long) free << 32) | queued;
    }

    private static int free(long state) {
        return (int) (state >>> 32);
    }

    private static int queued(long state) {
        return (int) (state & QUEUED_MASK);
    }
}
