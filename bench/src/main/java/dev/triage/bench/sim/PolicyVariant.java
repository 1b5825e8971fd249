package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.Policy;
import java.time.Duration;
import java.util.Objects;

/**
 * A policy as an experiment runs it: the production {@link Policy}, its starvation timeout τ, and
 * whether it sees true service times (an oracle) or the workload's estimates.
 *
 * <p>Names follow {@code [oracle-]POLICY[-tau]}: {@code fcfs}, {@code sjf}, {@code hrrn-tau},
 * {@code oracle-sjf}. A name may also be given explicitly ({@code sjf-tau3} in the Table 9 check).
 *
 * @param name how reports name it
 * @param policy the order of waiting jobs
 * @param starvationTimeout τ, {@link Duration#ZERO} for none
 * @param oracle true when the scheduler is told each job's true service time
 */
public record PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle) {

    private static final String ORACLE = "oracle-";
    private static final String TAU = "-tau";

    public PolicyVariant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        if (starvationTimeout.isNegative()) {
            throw new IllegalArgumentException("starvation timeout of " + name + ": " + starvationTimeout + " (expected: >= 0)");
        }
    }

    /**
     * Parses {@code [oracle-]POLICY[-tau]}; {@code -tau} takes the given τ.
     *
     * @throws IllegalArgumentException for an unknown policy, or {@code -tau} with no τ given
     */
    public static PolicyVariant parse(String spec, Duration tau) {
        String rest = spec.trim().toLowerCase(java.util.Locale.ROOT);
        boolean oracle = rest.startsWith(ORACLE);
        if (oracle) {
            rest = rest.substring(ORACLE.length());
        }
        boolean withTau = rest.endsWith(TAU);
        if (withTau) {
            rest = rest.substring(0, rest.length() - TAU.length());
            if (tau.isZero()) {
                throw new IllegalArgumentException("policy " + spec + " needs a starvation timeout (expected: --tau SECONDS)");
            }
        }
        Policy policy;
        try {
            policy = Policy.parse(rest);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("policy: " + spec + " (expected: [oracle-]fcfs|sjf|hrrn[-tau])");
        }
        return new PolicyVariant(spec.trim(), policy, withTau ? tau : Duration.ZERO, oracle);
    }

    /** The expected service time this variant tells the scheduler for a job. */
    double expectedSeconds(SimRequest request) {
        return oracle ? request.serviceSeconds() : request.estimatedSeconds();
    }
}
