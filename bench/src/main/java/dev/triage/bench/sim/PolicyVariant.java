package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.LapsSettings;
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
 * {@code oracle-sjf}, {@code laps}, {@code ewsjf} (sized by prompt tokens, the paper's way) and
 * {@code ewsjf-estimate} (sized by the expected service time). A name may also be given explicitly
 * ({@code sjf-tau3} in the Table 9 check). {@code oracle-srpt} is preemptive shortest-remaining-time-first
 * on true sizes, with free preemption: a bound the proxy has no policy for, which the simulator runs itself.
 *
 * @param name how reports name it
 * @param policy the order of waiting jobs
 * @param starvationTimeout τ, {@link Duration#ZERO} for none
 * @param oracle true when the scheduler is told each job's true service time
 * @param laps the settings of {@code laps}; ignored by the other policies
 * @param ewsjf how EWSJF runs, for the {@code ewsjf} policy; null for the others
 * @param srpt true for the {@code oracle-srpt} bound (then {@code policy} is {@code sjf}, {@code oracle} true)
 */
public record PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle, LapsSettings laps,
        EwsjfSettings ewsjf, boolean srpt) {

    /** The name of the preemptive shortest-remaining-time bound. */
    public static final String SRPT = "oracle-srpt";

    private static final String ORACLE = "oracle-";
    private static final String TAU = "-tau";
    private static final String EWSJF_ESTIMATE = "ewsjf-estimate";

    public PolicyVariant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(laps, "laps");
        if (starvationTimeout.isNegative()) {
            throw new IllegalArgumentException("starvation timeout of " + name + ": " + starvationTimeout + " (expected: >= 0)");
        }
        if ((policy == Policy.EWSJF) != (ewsjf != null)) {
            throw new IllegalArgumentException("policy " + name + ": ewsjf settings " + ewsjf + " (expected: settings for ewsjf, none otherwise)");
        }
        if (srpt && (policy != Policy.SJF || !oracle || !starvationTimeout.isZero())) {
            throw new IllegalArgumentException(SRPT + " is an oracle sjf without τ");
        }
    }

    /** A variant of a policy that is one order over jobs (fcfs, sjf, hrrn, laps), with the {@code laps} defaults. */
    public PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle) {
        this(name, policy, starvationTimeout, oracle, LapsSettings.DEFAULTS, null, false);
    }

    /** A variant of {@code ewsjf} with the given settings. */
    public PolicyVariant(String name, Policy policy, Duration starvationTimeout, boolean oracle, EwsjfSettings ewsjf) {
        this(name, policy, starvationTimeout, oracle, LapsSettings.DEFAULTS, ewsjf, false);
    }

    /** Parses {@code [oracle-]POLICY[-tau]} or {@code oracle-srpt}, laps and ewsjf with their default settings. */
    public static PolicyVariant parse(String spec, Duration tau) {
        return parse(spec, tau, LapsSettings.DEFAULTS, EwsjfSettings.defaults());
    }

    /** {@link #parse(String, Duration, LapsSettings, EwsjfSettings)} with ewsjf's default settings. */
    public static PolicyVariant parse(String spec, Duration tau, LapsSettings laps) {
        return parse(spec, tau, laps, EwsjfSettings.defaults());
    }

    /** {@link #parse(String, Duration, LapsSettings, EwsjfSettings)} with the {@code laps} defaults. */
    public static PolicyVariant parse(String spec, Duration tau, EwsjfSettings ewsjf) {
        return parse(spec, tau, LapsSettings.DEFAULTS, ewsjf);
    }

    /**
     * Parses {@code [oracle-]POLICY[-tau]} or {@code oracle-srpt}; {@code -tau} takes the given τ, a
     * {@code laps} variant the given laps settings, {@code ewsjf} the given ewsjf settings
     * ({@code ewsjf-estimate} with the estimate as size).
     *
     * @throws IllegalArgumentException for an unknown policy, or {@code -tau} with no τ given
     */
    public static PolicyVariant parse(String spec, Duration tau, LapsSettings laps, EwsjfSettings ewsjf) {
        if (spec.trim().equalsIgnoreCase(SRPT)) {
            return new PolicyVariant(SRPT, Policy.SJF, Duration.ZERO, true, laps, null, true);
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
        Duration timeout = withTau ? tau : Duration.ZERO;
        if (rest.equals(EWSJF_ESTIMATE)) {
            return new PolicyVariant(spec.trim(), Policy.EWSJF, timeout, oracle, laps, ewsjf.withSizeFeature(SizeFeature.ESTIMATE),
                    false);
        }
        Policy policy;
        try {
            policy = Policy.parse(rest);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "policy: " + spec + " (expected: [oracle-]fcfs|sjf|hrrn|laps|ewsjf|ewsjf-estimate[-tau] or oracle-srpt)");
        }
        return new PolicyVariant(spec.trim(), policy, timeout, oracle, laps, policy == Policy.EWSJF ? ewsjf : null, false);
    }

    /** This variant under another name, with other {@code laps} settings. */
    public PolicyVariant withLaps(String newName, LapsSettings settings) {
        return new PolicyVariant(newName, policy, starvationTimeout, oracle, settings, ewsjf, srpt);
    }

    /** The expected service time this variant tells the scheduler for a job. */
    double expectedSeconds(SimRequest request) {
        return oracle ? request.serviceSeconds() : request.estimatedSeconds();
    }
}
