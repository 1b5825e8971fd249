package dev.triage.bench.load;

import dev.triage.bench.workload.WorkloadEntry;

/**
 * One request a load run sends: a workload prompt and when to send it.
 *
 * @param sendAtSeconds seconds after the run starts
 */
public record LoadRequest(WorkloadEntry entry, double sendAtSeconds) {}
