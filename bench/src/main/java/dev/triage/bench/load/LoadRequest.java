package dev.triage.bench.load;

import dev.triage.bench.workload.WorkloadEntry;
import java.util.Optional;

/**
 * One request a load run sends: a workload prompt, when to send it, and whose it is.
 *
 * @param sendAtSeconds seconds after the run starts
 * @param apiKey the key a chat request sends as {@code Authorization: Bearer}, telling its tenant; empty for none
 */
public record LoadRequest(WorkloadEntry entry, double sendAtSeconds, Optional<String> apiKey) {

    /** A request of no tenant in particular. */
    public LoadRequest(WorkloadEntry entry, double sendAtSeconds) {
        this(entry, sendAtSeconds, Optional.empty());
    }
}
