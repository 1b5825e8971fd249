package dev.triage.bench.sim;

/**
 * One job of a simulated workload: when it arrives, what it really costs and what the scheduler is
 * told it costs.
 *
 * @param id position in the workload, 0-based
 * @param arrivalSeconds arrival time from the start of the run
 * @param size its class, true service time and tokens
 * @param estimatedSeconds the estimate non-oracle policies order by
 */
public record SimRequest(int id, double arrivalSeconds, JobSize size, double estimatedSeconds) {

    public SimRequest {
        if (!(arrivalSeconds >= 0) || Double.isInfinite(arrivalSeconds)) {
            throw new IllegalArgumentException("arrivalSeconds: " + arrivalSeconds + " (expected: finite, >= 0)");
        }
        if (!(estimatedSeconds > 0) || Double.isInfinite(estimatedSeconds)) {
            throw new IllegalArgumentException("job " + id + ": service " + size.serviceSeconds() + " s, estimate "
                    + estimatedSeconds + " s (expected: both finite, > 0)");
        }
    }

    /** A job given only in seconds: its class, its true service time and its estimate. */
    public SimRequest(int id, double arrivalSeconds, String jobClass, double serviceSeconds, double estimatedSeconds) {
        this(id, arrivalSeconds, JobSize.of(jobClass, serviceSeconds), estimatedSeconds);
    }

    /** The class results are broken down by. */
    public String jobClass() {
        return size.jobClass();
    }

    /** The true service time on a backend running it alone. */
    public double serviceSeconds() {
        return size.serviceSeconds();
    }
}
