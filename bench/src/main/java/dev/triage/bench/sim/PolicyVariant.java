package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.Policy;
import java.time.Duration;
import java.util.Objects;

/**
 * A policy as an experiment runs it: the production {@link Policy}, its starvation timeout τ, and
 * whether it sees true service times (an oracle) or the workload's estimates.
 *
 * <p>Names follow {@code [oracle-]POLICY[-tau]}: {@code fcfs}, {@code sjf}, {@code hrrn-tau},
 * {@code oracle-sjf}, {@code laps}. A name may also be given explicitly ({@code sjf-tau3} in the
 * Table 9 check). {@code oracle-srpt} is preemptive shortest-remaining-time-first on true sizes,
 * with free preemption: a bound the proxy has no policy for, which the simulator runs itself.
 *
 * @param name how reports name it
 * @param policy the order of waiting jobs
 * @param starvationTimeout τ, {@link Duration#ZERO} for none
 * @param oracle true when the scheduler is told each job's true service time
 * @param laps the settings of {@code laps}; ignored by the other policies
 * @param srpt true for the {@code oracle-srpt} bound (then {@code policy} is {@code sjf}, {@code oracle} true)
 */
public record PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle, LapsSettings laps,
        boolean srpt) {

    /** The name of the preemptive shortest-remaining-time bound. */
    public static final String SRPT = "oracle-srpt";

    private static final String ORACLE = "oracle-";
    private static final String TAU = "-tau";

    public PolicyVariant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(laps, "laps");
        if (starvationTimeout.isNegative()) {
            throw new IllegalArgumentException("starvation timeout of " + name + ": " + starvationTimeout + " (expected: >= 0)");
        }
        if (srpt && (policy != Policy.SJF || !oracle || !starvationTimeout.isZero())) {
            throw new IllegalArgumentException(SRPT + " is an oracle sjf without τ");
        }
    }

    /** A variant of a production policy, with the {@code laps} defaults. */
    public PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle) {
        this(name, policy, starvationTimeout, oracle, LapsSettings.DEFAULTS, false);
    }

    /** {@link #parse(String, Duration, LapsSettings)} with the {@code laps} defaults. */
    public static PolicyVariant parse(String spec, Duration tau) {
        return parse(spec, tau, LapsSettings.DEFAULTS);
    }

    /**
     * Parses {@code [oracle-]POLICY[-tau]} or {@code oracle-srpt}; {@code -tau} takes the given τ, a
     * {@code laps} variant the given settings.
     *
     * @throws IllegalArgumentException for an unknown policy, or {@code -tau} with no τ given
     */
    public static PolicyVariant parse(String spec, Duration tau, LapsSettings laps) {
        if (spec.trim().equalsIgnoreCase(SRPT)) {
            return new PolicyVariant(SRPT, Policy.SJF, Duration.ZERO, true, laps, true);
        }
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
            throw new IllegalArgumentException("policy: " + spec + " (expected: [oracle-]fcfs|sjf|hrrn|laps[-tau] or oracle-srpt)");
        }
        return new PolicyVariant(spec.trim(), policy, withTau ? tau : Duration.ZERO, oracle, laps, false);
    }

    /** This variant under another name, with other {@code laps} settings. */
    public PolicyVariant withLaps(String newName, LapsSettings settings) {
        return new PolicyVariant(newName, policy, starvationTimeout, oracle, settings, srpt);
    }

    /** The expected service time this variant tells the scheduler for a job. */
    double expectedSeconds(SimRequest request) {
        return oracle ? request.serviceSeconds() : request.estimatedSeconds();
    }
}
