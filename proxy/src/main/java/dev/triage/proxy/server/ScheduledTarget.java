package dev.triage.proxy.server;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.sizing.RequestSizer;

/**
 * Where a kind of scheduled request goes and how it is read.
 *
 * @param backend the backend whose queue and slots it takes
 * @param sizer what turns its body into an estimate and a priority
 * @param maxBody the largest body accepted, in bytes
 * @param serviceTime what a job of this kind is expected to cost its backend, in seconds
 */
public record ScheduledTarget(Backend backend, RequestSizer sizer, long maxBody, ServiceTimeModel serviceTime) {}
