package dev.triage.bench.sim;

/**
 * A job after a simulated run: when it arrived, started, produced its first token and finished, on
 * the virtual clock.
 *
 * @param firstTokenSeconds when its first token came out (its finish, for a job of no tokens)
 * @param starvationPromoted true when the starvation timeout, not the policy, sent it
 */
public record CompletedRequest(SimRequest request, double arrivalSeconds, double startSeconds, double firstTokenSeconds,
        double finishSeconds, boolean starvationPromoted) {

    /** Time in the system, queue plus service: what a client sees as latency. */
    public double sojournSeconds() {
        return finishSeconds - arrivalSeconds;
    }

    public double waitSeconds() {
        return startSeconds - arrivalSeconds;
    }

    /** Time to the first token, queue and prefill included. */
    public double timeToFirstTokenSeconds() {
        return firstTokenSeconds - arrivalSeconds;
    }
}
