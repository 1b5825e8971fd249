package dev.triage.proxy.server;

import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.sizing.RequestSizer;

/**
 * Where a kind of scheduled request goes and how it is read.
 *
 * @param backend the backend whose queue and slots it takes
 * @param sizer what turns its body into an estimate and a priority
 * @param maxBody the largest body accepted, in bytes
 * @param learner what its backend's answers taught: the calibration of its estimates, and what a job of
 *     this kind costs the backend in seconds
 * @param preemption how its backend continues a paused stream; {@link PreemptionDialect#OFF} never pauses
 * @param forwardPriority whether the forwarded JSON body carries the scheduling rank as vLLM's {@code priority}
 *     ({@link ForwardedPriority})
 */
public record ScheduledTarget(Backend backend, RequestSizer sizer, long maxBody, BackendLearner learner,
        PreemptionDialect preemption, boolean forwardPriority) {}
