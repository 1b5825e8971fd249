package dev.triage.bench.sim;

import java.util.Locale;

/**
 * How a simulated pool of backends gets its requests ({@link ScaleOutSimulation}): one of four ways to
 * pick a backend's own queue when a request arrives, or one queue shared by every backend, which binds
 * a request to a backend only when a slot frees (late binding).
 */
public enum Routing {
    /** Backends in turn, whatever they hold. */
    ROUND_ROBIN,
    /** The backend with the fewest requests waiting or running. */
    LEAST_OUTSTANDING,
    /**
     * The backend that would finish this request first by the service-time model: its queued and running
     * expected seconds over its slots, plus this request, over its relative speed.
     */
    LEAST_EXPECTED_COMPLETION,
    /** Two backends drawn at random; the one with fewer requests outstanding. */
    POWER_OF_TWO,
    /** One queue for the pool: the scheduler picks the next request when any slot frees, on the fastest free backend. */
    SHARED_QUEUE;

    /** Lower case with dashes, as on the command line: {@code least-expected-completion}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The routing of a {@link #label()}. */
    public static Routing parse(String label) {
        for (Routing routing : values()) {
            if (routing.label().equals(label)) {
                return routing;
            }
        }
        throw new IllegalArgumentException("routing: " + label + " (expected: round-robin, least-outstanding, "
                + "least-expected-completion, power-of-two or shared-queue)");
    }
}
