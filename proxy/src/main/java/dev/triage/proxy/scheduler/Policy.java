package dev.triage.proxy.scheduler;

import java.util.Comparator;
import java.util.Locale;

/**
 * The order in which waiting jobs are sent once the client priority has been compared. Every policy
 * breaks ties by arrival.
 *
 * <ul>
 *   <li>{@code fcfs}: arrival order, what a backend does on its own.</li>
 *   <li>{@code sjf}: shortest expected service time first. Minimises mean waiting time; long jobs can
 *       starve under a stream of short ones unless a starvation timeout is set.</li>
 *   <li>{@code hrrn}: highest response ratio next, ratio = (wait + S) / S. A job's ratio grows while it
 *       waits, faster for short jobs, so short jobs still go first but no job waits forever.</li>
 *   <li>{@code laps}: least attained, then perceived, service (LAPS-SD): the level of attained service
 *       first (see {@link LapsSettings}); within a level, jobs with a perceptible rate by predicted
 *       remaining time, then the others in the order they joined the level. A waiting job's key is
 *       fixed while it waits: it changes only while the job runs.</li>
 *   <li>{@code ewsjf}: jobs of similar size share a queue, the queues are learnt from the traffic, and
 *       the queue whose oldest job scores highest goes next ({@code scheduler.ewsjf.EwsjfQueues}).
 *       It is not one order over jobs, so it comes with the queues that keep it.</li>
 * </ul>
 */
public enum Policy {
    FCFS {
        @Override
        int compareWithinPriority(Job<?> a, Job<?> b, long nowNanos) {
            return 0;
        }
    },
    SJF {
        @Override
        int compareWithinPriority(Job<?> a, Job<?> b, long nowNanos) {
            return Double.compare(a.expectedSeconds(), b.expectedSeconds());
        }
    },
    HRRN {
        @Override
        int compareWithinPriority(Job<?> a, Job<?> b, long nowNanos) {
            // Higher ratio first. (w + S) / S = 1 + w / S, so comparing w / S is enough.
            return Double.compare(urgency(b, nowNanos), urgency(a, nowNanos));
        }

        @Override
        public boolean dependsOnTime() {
            return true;
        }
    },
    LAPS {
        @Override
        int compareWithinPriority(Job<?> a, Job<?> b, long nowNanos) {
            JobProgress pa = a.progress();
            JobProgress pb = b.progress();
            if (pa.level() != pb.level()) {
                return Integer.compare(pa.level(), pb.level());
            }
            if (pa.perceptible() != pb.perceptible()) {
                return pa.perceptible() ? -1 : 1;
            }
            return pa.perceptible() ? Double.compare(pa.remainingSeconds(), pb.remainingSeconds())
                    : Long.compare(pa.levelEntry(), pb.levelEntry());
        }
    },
    EWSJF {
        /** Within one of ewsjf's queues, jobs go in arrival order; which queue goes next is the queues' choice. */
        @Override
        int compareWithinPriority(Job<?> a, Job<?> b, long nowNanos) {
            return 0;
        }

        @Override
        public boolean dependsOnTime() {
            return true;
        }

        @Override
        public boolean isOrder() {
            return false;
        }
    };

    /** HRRN's order key, w / S (in nanoseconds per second): monotone in the response ratio. */
    static double urgency(Job<?> job, long nowNanos) {
        return job.waitedNanos(nowNanos) * job.inverseSeconds();
    }

    abstract int compareWithinPriority(Job<?> a, Job<?> b, long nowNanos);

    /** True when the order of two waiting jobs can change while they wait. */
    public boolean dependsOnTime() {
        return false;
    }

    /**
     * True when no job may take a slot without the scheduler: ewsjf's queues learn from the size and
     * the completion of every job, and laps ranks running jobs by their progress and pauses them.
     */
    public boolean seesEveryJob() {
        return this == LAPS || this == EWSJF;
    }

    /**
     * True when the policy is one order over jobs, which {@link Scheduler#Scheduler(SchedulerSettings, Clock)}
     * keeps by itself; false for a policy that brings its own {@link WaitingJobs}.
     */
    public boolean isOrder() {
        return true;
    }

    /**
     * The dispatch order at {@code nowNanos}: client priority (lower first), then this policy, then
     * arrival. Time-independent policies may pass any {@code nowNanos}.
     */
    public <T> Comparator<Job<T>> order(long nowNanos) {
        return (a, b) -> {
            int byPriority = Integer.compare(a.priority(), b.priority());
            if (byPriority != 0) {
                return byPriority;
            }
            int byPolicy = compareWithinPriority(a, b, nowNanos);
            return byPolicy != 0 ? byPolicy : Long.compare(a.sequence(), b.sequence());
        };
    }

    /** Lower-case name, as in configuration and the {@code x-triage-policy} header. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a configuration value: {@code fcfs}, {@code sjf}, {@code hrrn}, {@code laps} or {@code ewsjf},
     * any case.
     */
    public static Policy parse(String value) {
        for (Policy policy : values()) {
            if (policy.label().equalsIgnoreCase(value.trim())) {
                return policy;
            }
        }
        throw new IllegalArgumentException(value);
    }
}
