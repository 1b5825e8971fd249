package dev.triage.proxy.server;

import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.upstream.UpstreamPool;

/**
 * A backend as the server uses it: where it is, its connection pool, and its scheduling queue.
 *
 * @param name the backend's label in metrics and the queue view ({@code chat}, {@code audio})
 */
public record Backend(String name, BackendConfig config, UpstreamPool pool, BackendQueue queue) {}
