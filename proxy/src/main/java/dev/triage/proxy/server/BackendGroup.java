package dev.triage.proxy.server;

import dev.triage.proxy.config.ModelName;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.Slot;
import java.util.List;
import java.util.Set;

/**
 * The backends that serve the same models, behind their one queue: a job waits there and is bound to
 * one of them only when a slot frees (see {@link BackendQueue#backends()}).
 *
 * @param queue the queue the backends share
 * @param backends the backends, in the queue's order ({@link Slot#backend()} indexes them)
 * @param learners what each backend's answers taught, for this kind of request, in the same order
 * @param models the {@code model} names the backends serve; empty for every model
 */
public record BackendGroup(BackendQueue queue, List<Backend> backends, List<BackendLearner> learners, Set<String> models) {

    public BackendGroup {
        backends = List.copyOf(backends);
        learners = List.copyOf(learners);
        models = Set.copyOf(models);
        if (backends.size() != learners.size() || backends.size() != queue.backends().size()) {
            throw new IllegalArgumentException("backends: " + backends.size() + " (expected: one learner and one queue slot pool each)");
        }
    }

    /** The backend a slot is bound to. */
    public Backend backend(Slot slot) {
        return backends.get(slot.backend());
    }

    /** The learner a job waiting for any of the backends is costed by: the first backend's. */
    public BackendLearner costLearner() {
        return learners.get(0);
    }

    public boolean serves(String model) {
        return ModelName.servedBy(models, model);
    }

    /** More than one backend: a request that failed before a byte reached one may go to another. */
    public boolean hasAlternatives() {
        return backends.size() > 1;
    }
}
