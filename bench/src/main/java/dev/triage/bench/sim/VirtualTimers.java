package dev.triage.bench.sim;

import dev.triage.bench.backend.EngineTimers;
import java.util.Comparator;
import java.util.PriorityQueue;

/** The simulator's timers: tasks ordered by their virtual time, then by when they were scheduled. */
final class VirtualTimers implements EngineTimers {

    private final VirtualClock clock;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
            Comparator.comparingLong(Task::dueNanos).thenComparingLong(Task::sequence));
    private long nextSequence;

    VirtualTimers(VirtualClock clock) {
        this.clock = clock;
    }

    private static final class Task implements Timer {
        final long dueNanos;
        final long sequence;
        final Runnable work;
        boolean cancelled;

        Task(long dueNanos, long sequence, Runnable work) {
            this.dueNanos = dueNanos;
            this.sequence = sequence;
            this.work = work;
        }

        long dueNanos() {
            return dueNanos;
        }

        long sequence() {
            return sequence;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    @Override
    public long nanoTime() {
        return clock.nanoTime();
    }

    @Override
    public Timer schedule(Runnable work, long delayNanos) {
        Task task = new Task(clock.nanoTime() + Math.max(0, delayNanos), nextSequence++, work);
        tasks.add(task);
        return task;
    }

    /** When the next task is due, or {@link Long#MAX_VALUE} when none is. */
    long nextDueNanos() {
        while (!tasks.isEmpty() && tasks.peek().cancelled) {
            tasks.poll();
        }
        return tasks.isEmpty() ? Long.MAX_VALUE : tasks.peek().dueNanos;
    }

    /** Runs every task due by now, those they schedule for now included. */
    void runDue() {
        while (nextDueNanos() <= clock.nanoTime()) {
            tasks.poll().work.run();
        }
    }
}
