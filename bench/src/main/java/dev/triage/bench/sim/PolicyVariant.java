package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import dev.triage.proxy.scheduler.ewsjf.SizeFeature;
import java.time.Duration;
import java.util.Objects;

/**
 * A policy as an experiment runs it: the production {@link Policy}, its starvation timeout τ, and
 * whether it sees true service times (an oracle) or the workload's estimates.
 *
 * <p>Names follow {@code [oracle-]POLICY[-tau]}: {@code fcfs}, {@code sjf}, {@code hrrn-tau},
 * {@code oracle-sjf}, {@code ewsjf} (sized by prompt tokens, the paper's way) and
 * {@code ewsjf-estimate} (sized by the expected service time). A name may also be given explicitly
 * ({@code sjf-tau3} in the Table 9 check).
 *
 * @param name how reports name it
 * @param policy the order of waiting jobs
 * @param starvationTimeout τ, {@link Duration#ZERO} for none
 * @param oracle true when the scheduler is told each job's true service time
 * @param ewsjf how EWSJF runs, for the {@code ewsjf} policy; null for the others
 */
public record PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle, EwsjfSettings ewsjf) {

    private static final String ORACLE = "oracle-";
    private static final String TAU = "-tau";
    private static final String EWSJF_ESTIMATE = "ewsjf-estimate";

    public PolicyVariant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        if (starvationTimeout.isNegative()) {
            throw new IllegalArgumentException("starvation timeout of " + name + ": " + starvationTimeout + " (expected: >= 0)");
        }
        if ((policy == Policy.EWSJF) != (ewsjf != null)) {
            throw new IllegalArgumentException("policy " + name + ": ewsjf settings " + ewsjf + " (expected: settings for ewsjf, none otherwise)");
        }
    }

    /** A variant of a policy that is one order over jobs (fcfs, sjf, hrrn). */
    public PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle) {
        this(name, policy, starvationTimeout, oracle, null);
    }

    /** Parses {@code [oracle-]POLICY[-tau]}, ewsjf with its default settings. */
    public static PolicyVariant parse(String spec, Duration tau) {
        return parse(spec, tau, EwsjfSettings.defaults());
    }

    /**
     * Parses {@code [oracle-]POLICY[-tau]}; {@code -tau} takes the given τ, {@code ewsjf} the given
     * settings ({@code ewsjf-estimate} with the estimate as size).
     *
     * @throws IllegalArgumentException for an unknown policy, or {@code -tau} with no τ given
     */
    public static PolicyVariant parse(String spec, Duration tau, EwsjfSettings ewsjf) {
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
        Duration timeout = withTau ? tau : Duration.ZERO;
        if (rest.equals(EWSJF_ESTIMATE)) {
            return new PolicyVariant(spec.trim(), Policy.EWSJF, timeout, oracle, ewsjf.withSizeFeature(SizeFeature.ESTIMATE));
        }
        Policy policy;
        try {
            policy = Policy.parse(rest);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("policy: " + spec + " (expected: [oracle-]fcfs|sjf|hrrn|ewsjf|ewsjf-estimate[-tau])");
        }
        return new PolicyVariant(spec.trim(), policy, timeout, oracle, policy == Policy.EWSJF ? ewsjf : null);
    }

    /** The expected service time this variant tells the scheduler for a job. */
    double expectedSeconds(SimRequest request) {
        return oracle ? request.serviceSeconds() : request.estimatedSeconds();
    }
}
