package dev.triage.proxy.server;

/**
 * Where a kind of scheduled request goes and how it is read.
 *
 * @param backend the backend whose queue and slots it takes
 * @param sizer what turns its body into an estimate and a priority
 * @param maxBody the largest body accepted, in bytes
 */
public record ScheduledTarget(Backend backend, RequestSizer sizer, long maxBody) {}
