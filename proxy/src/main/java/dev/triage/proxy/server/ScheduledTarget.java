package dev.triage.proxy.server;

import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.sizing.RequestSizer;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where a kind of scheduled request goes and how it is read.
 *
 * @param groups the backends it may go to, one group per set of models they serve; a request goes to
 *     the group serving its {@code model}, and waits in that group's queue
 * @param sizer what turns its body into an estimate and a priority
 * @param maxBody the largest body accepted, in bytes
 * @param preemption how its backend continues a paused stream; {@link PreemptionDialect#OFF} never pauses
 * @param forwardPriority whether the forwarded JSON body carries the scheduling rank as vLLM's {@code priority}
 *     ({@link ForwardedPriority})
 */
public record ScheduledTarget(List<BackendGroup> groups, RequestSizer sizer, long maxBody, PreemptionDialect preemption,
        boolean forwardPriority) {

    public ScheduledTarget {
        groups = List.copyOf(groups);
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("groups: none (expected: at least one)");
        }
    }

    /**
     * One backend, whose queue is its own.
     *
     * @param learner what its backend's answers taught: the calibration of its estimates, and what a
     *     job of this kind costs the backend in seconds
     */
    public ScheduledTarget(Backend backend, RequestSizer sizer, long maxBody, BackendLearner learner,
            PreemptionDialect preemption, boolean forwardPriority) {
        this(List.of(new BackendGroup(backend.queue(), List.of(backend), List.of(learner), Set.of())), sizer, maxBody, preemption,
                forwardPriority);
    }

    /**
     * True when the request's {@code model} decides where it goes, or whether it goes at all: the groups
     * serve different models, or the one group names the models it serves.
     */
    public boolean routesByModel() {
        return groups.size() > 1 || !groups.get(0).models().isEmpty();
    }

    /**
     * The group serving {@code model}; for a request that names none, the only group where there is
     * one. Empty when none does.
     */
    public Optional<BackendGroup> group(Optional<String> model) {
        if (model.isEmpty()) {
            return groups.size() == 1 ? Optional.of(onlyGroup()) : Optional.empty();
        }
        return groups.stream().filter(group -> group.serves(model.get())).findFirst();
    }

    /** The group of a request whose model does not matter: the only one. */
    public BackendGroup onlyGroup() {
        return groups.get(0);
    }
}
