package dev.triage.proxy.scheduler;

import java.util.Arrays;
import java.util.List;

/**
 * The slots of the backends behind one queue, and which backend a granted slot is bound to: late
 * binding. A job takes one of the queue's {@link SlotPermits} first; only then is it bound to the
 * backend with a free slot that is expected to serve it soonest (the least expected seconds by its
 * learned service time, ties to the one running fewest). An ejected backend's slots leave the
 * permits, so no job is granted a slot only an ejected backend has; its running jobs finish there.
 *
 * <p>The permits count {@code free slots of the backends in service − permits taken but not yet
 * bound}; every change of a backend's state and every binding keeps that true under this object's
 * lock, so a job holding a permit always finds a slot. Only when a backend was ejected between a
 * permit and its binding can the slot found be the ejected backend's; the call then fails there
 * before a byte is sent and is retried elsewhere.
 */
final class PoolSlots {

    private final SlotPermits permits;
    private final List<PoolMember> members;
    private final int[] busy;
    private final boolean[] up;
    /** When each backend last gave a sign of being down ({@link System#nanoTime()}): a probe sent before does not readmit it. */
    private final long[] downSinceNanos;
    private int upCount;

    PoolSlots(List<PoolMember> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("members: none (expected: at least one backend)");
        }
        this.members = List.copyOf(members);
        this.busy = new int[members.size()];
        this.up = new boolean[members.size()];
        Arrays.fill(up, true);
        this.downSinceNanos = new long[members.size()];
        this.upCount = members.size();
        this.permits = new SlotPermits(members.stream().mapToInt(PoolMember::slots).sum());
    }

    SlotPermits permits() {
        return permits;
    }

    List<PoolMember> members() {
        return members;
    }

    /**
     * Binds a permit just taken to a backend's free slot: the backend in service expected to be
     * fastest, ties to the one running fewest.
     *
     * @return the backend's index in {@link #members()}
     */
    synchronized int bind() {
        if (busy.length == 1) {
            busy[0]++;
            return 0;
        }
        int best = -1;
        double bestSeconds = Double.POSITIVE_INFINITY;
        for (int i = 0; i < busy.length; i++) {
            if (!up[i] || busy[i] >= members.get(i).slots()) {
                continue;
            }
            double seconds = members.get(i).expectedSeconds().getAsDouble();
            if (best < 0 || seconds < bestSeconds || seconds == bestSeconds && busy[i] < busy[best]) {
                best = i;
                bestSeconds = seconds;
            }
        }
        if (best < 0) {
            best = ejectedWithFreeSlot();
            // The permit stays with the pool: the slot it is bound to is one the pool had given up.
            permits.returnUnbound();
        }
        busy[best]++;
        return best;
    }

    private int ejectedWithFreeSlot() {
        for (int i = 0; i < busy.length; i++) {
            if (!up[i] && busy[i] < members.get(i).slots()) {
                return i;
            }
        }
        throw new IllegalStateException("a permit was granted with no backend slot free");
    }

    /**
     * Frees a slot of backend {@code member}.
     *
     * @return true when the slot went back to the permits and jobs are queued, so the loop should grant it
     */
    synchronized boolean unbind(int member) {
        if (busy[member] == 0) {
            throw new IllegalStateException("backend " + members.get(member).name() + ": more slots freed than bound");
        }
        busy[member]--;
        return up[member] && permits.release();
    }

    /**
     * Stops binding jobs to backend {@code member}, which was found down at {@code nowNanos}. The last
     * backend in service is never ejected: its requests then fail with the backend's own error rather
     * than wait for a backend that is gone.
     *
     * @return true when it was ejected now
     */
    synchronized boolean eject(int member, long nowNanos) {
        downSinceNanos[member] = nowNanos;
        if (!up[member] || upCount == 1) {
            return false;
        }
        up[member] = false;
        upCount--;
        permits.withdraw(members.get(member).slots(), members.get(member).slots() - busy[member]);
        return true;
    }

    /**
     * Binds jobs to backend {@code member} again, on a probe's pass. A probe sent before the backend
     * was last found down proves nothing: its answer may have left just before the backend went.
     *
     * @param probeSentNanos when the probe that passed was sent ({@link System#nanoTime()})
     * @return true when it was readmitted now
     */
    synchronized boolean readmit(int member, long probeSentNanos) {
        if (up[member] || probeSentNanos - downSinceNanos[member] < 0) {
            return false;
        }
        up[member] = true;
        upCount++;
        permits.restore(members.get(member).slots(), members.get(member).slots() - busy[member]);
        return true;
    }

    synchronized boolean up(int member) {
        return up[member];
    }

    synchronized int busy(int member) {
        return busy[member];
    }

    /**
     * Jobs running at backend {@code member} just after one was bound to it, that one included: what
     * its learner reads as the batch the job ran in. With one backend, the permits' count, as taken.
     */
    int running(int member) {
        return busy.length == 1 ? permits.busy() : busy(member);
    }
}
