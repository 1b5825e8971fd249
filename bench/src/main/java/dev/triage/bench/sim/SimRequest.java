package dev.triage.bench.sim;

/**
 * One job of a simulated workload: when it arrives, its class, what it really costs and what the
 * scheduler is told it costs.
 *
 * @param id position in the workload, 0-based
 * @param arrivalSeconds arrival time from the start of the run
 * @param jobClass the class results are broken down by
 * @param serviceSeconds the true service time
 * @param estimatedSeconds the estimate non-oracle policies order by
 */
public record SimRequest(int id, double arrivalSeconds, String jobClass, double serviceSeconds, double estimatedSeconds) {

    public SimRequest {
        if (!(arrivalSeconds >= 0) || Double.isInfinite(arrivalSeconds)) {
            throw new IllegalArgumentException("arrivalSeconds: " + arrivalSeconds + " (expected: finite, >= 0)");
        }
        if (!(serviceSeconds > 0) || !(estimatedSeconds > 0) || Double.isInfinite(serviceSeconds) || Double.isInfinite(estimatedSeconds)) {
            throw new IllegalArgumentException("job " + id + ": service " + serviceSeconds + " s, estimate "
                    + estimatedSeconds + " s (expected: both finite, > 0)");
        }
    }
}
