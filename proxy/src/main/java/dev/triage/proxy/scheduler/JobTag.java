package dev.triage.proxy.scheduler;

/**
 * How a waiting job is named in the queue view: never its prompt.
 *
 * @param id the request's id, as in the request log
 * @param routeKind {@code chat} or {@code audio}
 */
public record JobTag(String id, String routeKind) {}
