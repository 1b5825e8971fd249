package dev.triage.bench.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a load run puts between the clients and the backend: nothing ({@code direct}), or Triage with
 * a policy, with or without a starvation timeout, with its estimator or an oracle. Names:
 * {@code direct}, {@code fcfs}, {@code sjf}, {@code hrrn}, {@code ewsjf}, {@code sjf-tau}, {@code hrrn-tau}, and any of
 * the policies prefixed {@code oracle-} (Triage sizes chat requests by their true answer lengths
 * instead of its estimator: the bound an estimator can approach). Transcriptions are sized by Triage's
 * own duration estimator in every variant, oracle ones included, so for a speech-only workload an
 * {@code oracle-} variant is its plain one.
 *
 * @param policy Triage's {@code --policy}; empty for {@code direct}
 * @param tau the starvation timeout, {@link Duration#ZERO} for off
 */
public record LoadVariant(String name, String policy, Duration tau, boolean oracle) {

    /** Parses a variant name; {@code tau} is used by the {@code -tau} variants. */
    public static LoadVariant parse(String name, Duration tau) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        boolean oracle = n.startsWith("oracle-");
        String rest = oracle ? n.substring(7) : n;
        boolean withTau = rest.endsWith("-tau");
        String policy = withTau ? rest.substring(0, rest.length() - 4) : rest;
        if (n.equals("direct")) {
            return new LoadVariant(n, "", Duration.ZERO, false);
        }
        if (!List.of("fcfs", "sjf", "hrrn", "ewsjf").contains(policy) || (withTau && tau.isZero())) {
            throw new IllegalArgumentException("variant: " + name
                    + " (expected: direct, fcfs, sjf, hrrn, ewsjf, each optionally -tau (with --tau) or oracle-)");
        }
        return new LoadVariant(n, policy, withTau ? tau : Duration.ZERO, oracle);
    }

    public boolean throughTriage() {
        return !policy.isEmpty();
    }

    /** Triage's flags for this variant in front of {@code backendUrl}, plus {@code extra}. */
    public List<String> triageFlags(String backendUrl, List<String> extra) {
        List<String> flags = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--backend", backendUrl,
                "--policy", policy, "--starvation-timeout", tau.isZero() ? "off" : tau.toMillis() + "ms",
                "--max-queue", "100000"));
        flags.addAll(extra);
        return flags;
    }
}
