package dev.triage.proxy.scheduler;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * How much of the backend's time each tenant is owed relative to the others under fair sharing: a
 * tenant with weight 3 is served three seconds of estimated work for every second of a tenant with
 * weight 1 while both wait. A tenant not named has weight 1.
 *
 * <pre>{@code
 * TenantWeights weights = TenantWeights.parse("team-a=3,team-b=0.5");
 * weights.of("team-a");   // 3.0
 * weights.of("anyone");   // 1.0
 * }</pre>
 */
public final class TenantWeights {

    /** Every tenant weighs the same. */
    public static final TenantWeights EQUAL = new TenantWeights(Map.of());

    private final Map<String, Double> weights;

    private TenantWeights(Map<String, Double> weights) {
        this.weights = Map.copyOf(weights);
    }

    /**
     * The weights a tenant may have. A share divides a job's seconds by its tenant's weight, so a
     * weight near 0 (a subnormal one divides to infinity) would stop the fair order; 10⁻⁶ and 10⁶
     * already set one tenant a trillion times another's share.
     */
    static final double MIN_WEIGHT = 1e-6;
    static final double MAX_WEIGHT = 1e6;

    /**
     * Parses {@code tenant=weight} pairs separated by commas; empty for {@link #EQUAL}.
     *
     * @throws IllegalArgumentException naming the pair that is not a tenant and a weight from {@link #MIN_WEIGHT} to
     *     {@link #MAX_WEIGHT}
     */
    public static TenantWeights parse(String pairs) {
        Map<String, Double> weights = new LinkedHashMap<>();
        if (pairs.isBlank()) {
            return EQUAL;
        }
        for (String pair : pairs.split(",")) {
            int equals = pair.indexOf('=');
            String tenant = equals < 0 ? "" : pair.substring(0, equals).trim();
            double weight;
            try {
                weight = equals < 0 ? Double.NaN : Double.parseDouble(pair.substring(equals + 1).trim());
            } catch (NumberFormatException e) {
                weight = Double.NaN;
            }
            if (!(weight >= MIN_WEIGHT && weight <= MAX_WEIGHT)) {
                throw new IllegalArgumentException(pair.trim() + " (expected: tenant=weight, the weight a number from 0.000001 to 1000000)");
            }
            if (!JobTag.isTenantName(tenant)) {
                // A request's tenant is always such a name (TenantKeys hashes any other), so this one would never match.
                throw new IllegalArgumentException(pair.trim() + " (expected: a tenant of letters, digits, '.', '_' or '-', at most 64,"
                        + " and not other)");
            }
            weights.put(tenant, weight);
        }
        return new TenantWeights(weights);
    }

    /** The tenant's weight: its configured one, or 1. */
    public double of(String tenant) {
        return weights.getOrDefault(tenant, 1.0);
    }

    /** The tenants given a weight. */
    public Set<String> named() {
        return weights.keySet();
    }
}
