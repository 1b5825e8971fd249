package dev.triage.proxy.scheduler;

import java.util.regex.Pattern;

/**
 * How a waiting job is named in the queue view: never its prompt.
 *
 * @param id the request's id, as in the request log
 * @param routeKind {@code chat} or {@code audio}
 * @param tenant whom the request is served for, when the backend's time is shared among tenants
 *     ({@link FairShareJobs}); never a secret, only a name or a hash of one
 */
public record JobTag(String id, String routeKind, String tenant) {

    /** The tenant of requests that name none. */
    public static final String DEFAULT_TENANT = "default";

    private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * Whether {@code name} may name a tenant as it is: letters, digits, {@code .}, {@code _} and
     * {@code -}, at most 64, and not {@value TenantLedger#OTHER}, the label of the tenants past the
     * ledger's bound, whose served seconds it would be counted with.
     */
    public static boolean isTenantName(String name) {
        return TENANT_NAME.matcher(name).matches() && !name.equals(TenantLedger.OTHER);
    }

    /** A job of the default tenant. */
    public JobTag(String id, String routeKind) {
        this(id, routeKind, DEFAULT_TENANT);
    }
}
