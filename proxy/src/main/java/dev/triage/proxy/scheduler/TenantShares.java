package dev.triage.proxy.scheduler;

/**
 * How a backend's time is shared among tenants ({@link FairShareJobs}): their weights, and where the
 * time each one is served is counted.
 */
public record TenantShares(TenantWeights weights, TenantLedger ledger) {}
