package dev.triage.proxy.scheduler;

/**
 * A request waiting for a backend slot, as the scheduler sees it: when it arrived, the client's
 * priority, and what it is expected to cost ({@link JobCost}). Created by {@link Scheduler#submit}; the payload is
 * whatever the caller needs back when the job is dispatched (the proxy's exchange, the simulator's
 * job record).
 *
 * @param <T> the caller's payload
 */
public final class Job<T> {

    private final T payload;
    private final long sequence;
    private final long arrivalNanos;
    private final int priority;
    private JobCost cost;
    private double inverseSeconds;
    private boolean pausable;
    private final JobProgress progress;
    /** Position in a {@link WaitingJobs} array while waiting there; -1 otherwise. */
    int index = -1;

    Job(T payload, long sequence, long arrivalNanos, int priority, JobCost cost, boolean pausable,
            JobProgress progress) {
        this.payload = payload;
        this.sequence = sequence;
        this.arrivalNanos = arrivalNanos;
        this.priority = priority;
        this.cost = cost;
        this.inverseSeconds = 1 / cost.expectedSeconds();
        this.pausable = pausable;
        this.progress = progress;
    }

    public T payload() {
        return payload;
    }

    /** Arrival order at this scheduler: the final tie-break of every policy. */
    public long sequence() {
        return sequence;
    }

    public long arrivalNanos() {
        return arrivalNanos;
    }

    /** vLLM's convention: lower is sooner, 0 by default. */
    public int priority() {
        return priority;
    }

    public double expectedTokens() {
        return cost.expectedTokens();
    }

    /** Expected service time S, from the backend's service-time model; positive. */
    public double expectedSeconds() {
        return cost.expectedSeconds();
    }

    /** The prompt's length in tokens; 0 when unknown. */
    public int promptTokens() {
        return cost.promptTokens();
    }

    /** Expected time to the first token, from the backend's service-time model; positive. */
    public double prefillSeconds() {
        return cost.prefillSeconds();
    }

    /** A better estimate of its cost, made while it waits; its {@link WaitingJobs} places it again. */
    void resize(JobCost newCost) {
        cost = newCost;
        inverseSeconds = 1 / newCost.expectedSeconds();
    }

    /** 1 / S, so that HRRN's ratio is a multiplication wherever it is computed. */
    double inverseSeconds() {
        return inverseSeconds;
    }

    /** True when its holder can pause it and resume it later, so that a preemptive policy may. */
    public boolean pausable() {
        return pausable;
    }

    /** Its holder could not pause it when asked: it is not asked again. */
    void neverPause() {
        pausable = false;
    }

    /** What the job has received so far. */
    public JobProgress progress() {
        return progress;
    }

    public long waitedNanos(long nowNanos) {
        return nowNanos - arrivalNanos;
    }

    @Override
    public String toString() {
        return "Job#" + sequence + "{priority=" + priority + ", prompt=" + cost.promptTokens() + ", tokens="
                + cost.expectedTokens() + ", seconds=" + cost.expectedSeconds() + '}';
    }
}
