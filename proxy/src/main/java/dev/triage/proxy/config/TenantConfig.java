package dev.triage.proxy.config;

import dev.triage.proxy.scheduler.TenantWeights;
import java.util.Optional;

/**
 * Whether the backends' time is shared fairly among tenants, how a request's tenant is known, and what
 * each tenant weighs.
 *
 * @param fairShare true when each backend's queue serves its tenants by weighted fair shares
 * @param header the request header that names the tenant; empty to tell tenants by a hash of their API key
 * @param weights each tenant's weight; 1 for one not named
 */
public record TenantConfig(boolean fairShare, Optional<String> header, TenantWeights weights) {

    /** No fair shares: one queue in the policy's order, as if every request were one tenant's. */
    public static final TenantConfig OFF = new TenantConfig(false, Optional.empty(), TenantWeights.EQUAL);
}
