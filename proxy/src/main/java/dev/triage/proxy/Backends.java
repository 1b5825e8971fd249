package dev.triage.proxy;

import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.metrics.TriageMetrics;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.ConcurrencyLimiter;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.scheduler.TenantLedger;
import dev.triage.proxy.scheduler.TenantShares;
import dev.triage.proxy.server.Backend;
import dev.triage.proxy.upstream.BackendProbe;
import dev.triage.proxy.upstream.UpstreamPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The backends Triage fronts — the chat backend, and the audio backend when speech has a server of
 * its own — each with its connection pool, its queue on the dispatch loop, its metrics and its
 * readiness probe.
 */
final class Backends implements AutoCloseable {

    /**
     * Idle pooled backend connections are closed after this: below the 5 s after which uvicorn (under
     * vLLM), llama-server and Node close theirs, so that Triage, not the backend, ends an idle connection.
     */
    static final Duration UPSTREAM_IDLE = Duration.ofSeconds(4);
    /** Longest wait for a TCP connection to a backend. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How often readiness asks a backend whether it answers. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);

    /** Tenants, beyond those given a weight, whose served time has a metrics label of its own; the rest count as other. */
    static final int TENANT_LABELS = 16;

    private final List<UpstreamPool> pools = new ArrayList<>();
    private final List<BackendProbe> probes = new ArrayList<>();
    private final Backend chat;
    private final Backend audio;

    Backends(TriageConfig config, DispatchLoop dispatchLoop, TriageMetrics metrics) {
        chat = open("chat", config.backend(), config, dispatchLoop, metrics);
        config.adaptiveConcurrency().ifPresent(bounds -> chat.queue().adaptSlots(new ConcurrencyLimiter(bounds.min(), bounds.max())));
        audio = config.audio().backend().map(b -> open("audio", b, config, dispatchLoop, metrics)).orElse(chat);
        if (config.vllmMetrics()) {
            metrics.bindVllmNames(chat.queue());
        }
    }

    private Backend open(String name, BackendConfig backend, TriageConfig config, DispatchLoop dispatchLoop,
            TriageMetrics metrics) {
        Duration connectTimeout = config.upstreamTimeout().compareTo(CONNECT_TIMEOUT) < 0 ? config.upstreamTimeout() : CONNECT_TIMEOUT;
        UpstreamPool pool = new UpstreamPool(backend, connectTimeout, UPSTREAM_IDLE);
        pools.add(pool);
        probes.add(BackendProbe.start(backend, config.healthPath(), PROBE_INTERVAL));
        TenantShares shares = config.tenants().fairShare() ? new TenantShares(config.tenants().weights(),
                new TenantLedger(config.tenants().weights().named(), TENANT_LABELS)) : null;
        BackendQueue queue = dispatchLoop.addBackend(name, config.schedulerSettings(backend), config.ewsjf(), config.maxQueueWait(),
                shares);
        metrics.bindQueue(queue);
        if (shares != null) {
            metrics.bindTenants(name, shares.ledger());
        }
        return new Backend(name, backend, pool, queue);
    }

    Backend chat() {
        return chat;
    }

    /** The audio backend: the chat backend itself when speech has no server of its own. */
    Backend audio() {
        return audio;
    }

    /** True when every backend answered its last probe. */
    boolean allUp() {
        return probes.stream().allMatch(BackendProbe::up);
    }

    @Override
    public void close() {
        probes.forEach(BackendProbe::close);
        pools.forEach(UpstreamPool::close);
    }
}
