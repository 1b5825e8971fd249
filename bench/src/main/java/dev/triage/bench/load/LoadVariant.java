package dev.triage.bench.load;

import dev.triage.proxy.config.EstimatorConfig;
import dev.triage.proxy.scheduler.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a load run puts between the clients and the backend: nothing ({@code direct}), or Triage with
 * a policy, with or without a starvation timeout, with its estimator or an oracle. Names:
 * {@code direct}, {@code fcfs}, {@code sjf}, {@code hrrn}, {@code ewsjf}, {@code laps}, {@code sjf-tau}, {@code hrrn-tau}, any of
 * the policies prefixed {@code oracle-} (Triage sizes chat requests by their true answer lengths
 * instead of its estimator: the bound an estimator can approach), and any of these but
 * {@code direct} followed by {@code :} and an estimator's name ({@code sjf:ranker}), which Triage then
 * uses instead of the run's, and then by {@code @frozen} ({@code hrrn-tau@frozen}): Triage with
 * {@code --online-learning false}, the baseline of what learning from the backend's answers does, and by
 * {@code @slots=N} or {@code @slots=auto[:MIN..MAX]} ({@code sjf@slots=auto}): Triage with that
 * {@code --max-concurrency} instead of the run's, to sweep it against one backend. Transcriptions are sized by Triage's own duration estimator in every
 * variant, oracle ones included, so for a speech-only workload an {@code oracle-} variant is its
 * plain one.
 *
 * @param policy Triage's {@code --policy}; empty for {@code direct}
 * @param tau the starvation timeout, {@link Duration#ZERO} for off
 * @param estimator Triage's {@code --estimator} for this variant; empty for the run's
 * @param learning Triage's {@code --online-learning}
 * @param maxConcurrency Triage's {@code --max-concurrency} for this variant; empty for the run's
 */
public record LoadVariant(String name, String policy, Duration tau, boolean oracle, Optional<String> estimator, boolean learning,
        Optional<String> maxConcurrency) {

    /** What {@code @slots=} takes: Triage's {@code --max-concurrency}, whose bounds Triage itself checks. */
    private static final Pattern SLOTS = Pattern.compile("[1-9]\\d{0,5}|auto(:\\d{1,6}\\.\\.\\d{1,6})?");

    /** Parses a variant name; {@code tau} is used by the {@code -tau} variants. */
    public static LoadVariant parse(String name, Duration tau) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.equals("direct")) {
            return new LoadVariant(n, "", Duration.ZERO, false, Optional.empty(), true, Optional.empty());
        }
        String[] parts = n.split("@", -1);
        String variant = parts[0];
        boolean frozen = false;
        Optional<String> maxConcurrency = Optional.empty();
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].equals("frozen") && !frozen) {
                frozen = true;
            } else if (parts[i].startsWith("slots=") && maxConcurrency.isEmpty()
                    && SLOTS.matcher(parts[i].substring("slots=".length())).matches()) {
                maxConcurrency = Optional.of(parts[i].substring("slots=".length()));
            } else {
                throw invalid(name);
            }
        }
        int colon = variant.indexOf(':');
        Optional<String> estimator = colon < 0 ? Optional.empty() : Optional.of(variant.substring(colon + 1));
        String scheduling = colon < 0 ? variant : variant.substring(0, colon);
        boolean oracle = scheduling.startsWith("oracle-");
        String rest = oracle ? scheduling.substring(7) : scheduling;
        boolean withTau = rest.endsWith("-tau");
        String policy = withTau ? rest.substring(0, rest.length() - 4) : rest;
        if (!List.of("fcfs", "sjf", "hrrn", "ewsjf", "laps").contains(policy) || (withTau && tau.isZero())
                || !estimator.map(EstimatorConfig.NAMES::contains).orElse(true)) {
            throw invalid(name);
        }
        return new LoadVariant(n, policy, withTau ? tau : Duration.ZERO, oracle, estimator, !frozen, maxConcurrency);
    }

    private static IllegalArgumentException invalid(String name) {
        return new IllegalArgumentException("variant: " + name + " (expected: direct, or fcfs, sjf, hrrn, ewsjf, laps, each optionally -tau"
                + " (with --tau) or oracle-, and :estimator, one of " + String.join(", ", EstimatorConfig.NAMES)
                + ", and @frozen, @slots=N or @slots=auto[:MIN..MAX])");
    }

    public boolean throughTriage() {
        return !policy.isEmpty();
    }

    /**
     * The variants, if each can run against a real server. There the oracle is each request's true length sent as its
     * client {@code priority} (the relay sets the answer's length where Triage cannot read it), and Triage ranks a client
     * priority above its policy: an oracle variant of any policy but sjf would measure oracle SJF under another name.
     */
    public static List<LoadVariant> forRealServer(List<LoadVariant> variants) {
        for (LoadVariant variant : variants) {
            if (variant.oracle && !variant.policy.equals(Policy.SJF.label())) {
                throw new IllegalArgumentException("variant: " + variant.name + " (against a real server the oracle is the"
                        + " client priority, which Triage ranks above any policy: of the oracle variants, only oracle-sjf)");
            }
        }
        return variants;
    }

    /** True when Triage pauses and resumes running requests under this variant's policy (laps, alone). */
    public boolean pauses() {
        return policy.equals(Policy.LAPS.label());
    }

    /**
     * {@code triageFlags} with {@code --preemption} naming how the server continues a paused stream,
     * for a variant that pauses and when a dialect is given; the flags as they are otherwise, since
     * Triage refuses {@code --preemption} under any other policy.
     */
    public List<String> withPreemption(List<String> triageFlags, Optional<String> preemption) {
        if (!pauses() || preemption.isEmpty()) {
            return triageFlags;
        }
        List<String> flags = new ArrayList<>(triageFlags);
        flags.addAll(List.of("--preemption", preemption.get()));
        return flags;
    }

    /**
     * Triage's flags for this variant in front of {@code backendUrl}, plus {@code extra}; the variant's
     * estimator and concurrency win.
     */
    public List<String> triageFlags(String backendUrl, List<String> extra) {
        List<String> flags = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--backend", backendUrl,
                "--policy", policy, "--starvation-timeout", tau.isZero() ? "off" : tau.toMillis() + "ms",
                "--max-queue", "100000", "--online-learning", String.valueOf(learning)));
        flags.addAll(extra);
        estimator.ifPresent(name -> flags.addAll(List.of("--estimator", name)));
        maxConcurrency.ifPresent(slots -> flags.addAll(List.of("--max-concurrency", slots)));
        return flags;
    }
}
