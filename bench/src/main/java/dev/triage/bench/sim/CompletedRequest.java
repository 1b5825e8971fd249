package dev.triage.bench.sim;

/**
 * A job after a simulated run: when it arrived, started and finished, on the virtual clock.
 *
 * @param starvationPromoted true when the starvation timeout, not the policy, sent it
 */
public record CompletedRequest(SimRequest request, double arrivalSeconds, double startSeconds, double finishSeconds,
        boolean starvationPromoted) {

    /** Time in the system, queue plus service: what a client sees as latency. */
    public double sojournSeconds() {
        return finishSeconds - arrivalSeconds;
    }

    public double waitSeconds() {
        return startSeconds - arrivalSeconds;
    }
}
