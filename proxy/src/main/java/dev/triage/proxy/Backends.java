package dev.triage.proxy;

import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.metrics.TriageMetrics;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.ConcurrencyLimiter;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.scheduler.PoolMember;
import dev.triage.proxy.scheduler.TenantLedger;
import dev.triage.proxy.scheduler.TenantShares;
import dev.triage.proxy.server.Backend;
import dev.triage.proxy.upstream.BackendProbe;
import dev.triage.proxy.upstream.UpstreamPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The backends Triage fronts — the chat backends, and the audio backend when speech has a server of
 * its own — each with its connection pool, its metrics and its readiness probe, and the queues on
 * the dispatch loop that they share: one per set of chat backends serving the same models. A backend
 * whose probe fails is ejected from its queue, and readmitted once the probe passes again.
 */
final class Backends implements AutoCloseable {

    /**
     * Idle pooled backend connections are closed after this: below the 5 s after which uvicorn (under
     * vLLM), llama-server and Node close theirs, so that Triage, not the backend, ends an idle connection.
     */
    static final Duration UPSTREAM_IDLE = Duration.ofSeconds(4);
    /** Longest wait for a TCP connection to a backend. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** Backends sharing one queue, with the models they serve; empty models for every model. */
    record Group(BackendQueue queue, List<Backend> backends, Set<String> models) {}

    /** Tenants, beyond those given a weight, whose served time has a metrics label of its own; the rest count as other. */
    static final int TENANT_LABELS = 16;

    private final List<UpstreamPool> pools = new ArrayList<>();
    private final Map<Backend, BackendProbe> probes = new LinkedHashMap<>();
    private final List<Group> chat = new ArrayList<>();
    private final Group audio;

    /**
     * @param expectedSeconds what a typical request is expected to take at the backend of this name
     *     now, by what it has learned; asked only once requests flow
     */
    Backends(TriageConfig config, DispatchLoop dispatchLoop, TriageMetrics metrics, ToDoubleFunction<String> expectedSeconds) {
        Map<Set<String>, List<BackendConfig>> byModels = config.backends().stream()
                .collect(Collectors.groupingBy(BackendConfig::models, LinkedHashMap::new, Collectors.toList()));
        byModels.forEach((models, members) -> {
            String name = byModels.size() == 1 ? "chat" : members.stream().map(BackendConfig::name).collect(Collectors.joining("+"));
            chat.add(open(name, members, models, config.healthPath(), config, dispatchLoop, metrics, expectedSeconds));
        });
        audio = config.audio().backend()
                .map(b -> open("audio", List.of(b), Set.of(), config.audio().healthPath(), config, dispatchLoop, metrics, only -> 0))
                .orElse(chat.stream().filter(g -> g.models().isEmpty()).findFirst().orElse(chat.get(0)));
        // One backend only (the configuration refuses auto with several): a shared queue's slots are its backends'.
        config.adaptiveConcurrency().ifPresent(bounds -> chat.get(0).queue().adaptSlots(new ConcurrencyLimiter(bounds.min(), bounds.max())));
        if (config.vllmMetrics()) {
            metrics.bindVllmNames(chat.get(0).queue());
        }
    }

    private Group open(String name, List<BackendConfig> members, Set<String> models, String healthPath, TriageConfig config,
            DispatchLoop dispatchLoop, TriageMetrics metrics, ToDoubleFunction<String> expectedSeconds) {
        Duration connectTimeout = config.upstreamTimeout().compareTo(CONNECT_TIMEOUT) < 0 ? config.upstreamTimeout() : CONNECT_TIMEOUT;
        List<PoolMember> poolMembers = new ArrayList<>();
        int slots = 0;
        for (BackendConfig member : members) {
            String memberName = memberName(name, member);
            poolMembers.add(new PoolMember(memberName, member.maxConcurrency(), () -> expectedSeconds.applyAsDouble(memberName)));
            slots += member.maxConcurrency();
        }
        TenantShares shares = config.tenants().fairShare() ? new TenantShares(config.tenants().weights(),
                new TenantLedger(config.tenants().weights().named(), TENANT_LABELS)) : null;
        BackendQueue queue = dispatchLoop.addBackend(name, config.schedulerSettings(slots), config.ewsjf(), config.maxQueueWait(),
                shares, poolMembers);
        metrics.bindQueue(queue);
        if (shares != null) {
            metrics.bindTenants(name, shares.ledger());
        }
        List<Backend> backends = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            BackendConfig member = members.get(i);
            UpstreamPool pool = new UpstreamPool(member, connectTimeout, UPSTREAM_IDLE);
            pools.add(pool);
            int index = i;
            Backend backend = new Backend(poolMembers.get(i).name(), member, pool, queue);
            probes.put(backend, BackendProbe.start(member, healthPath, config.probeInterval(), (up, sentNanos) -> {
                if (up) {
                    queue.readmit(index, sentNanos);
                } else {
                    queue.eject(index);
                }
            }));
            backends.add(backend);
        }
        if (members.size() > 1) {
            metrics.bindPoolBackends(queue);
        }
        return new Group(queue, backends, models);
    }

    /** A chat backend is named by its configuration; the audio backend is the queue's only one. */
    private static String memberName(String queueName, BackendConfig member) {
        return member.name().isEmpty() ? queueName : member.name();
    }

    /** The chat backends' queues, each with the backends that share it. */
    List<Group> chat() {
        return chat;
    }

    /** The audio backend: the chat backends serving every model (or the first) when speech has no server of its own. */
    Group audio() {
        return audio;
    }

    /**
     * The backend an unscheduled request passes through to: the first chat backend in service, so that
     * a client still lists the models while the first is ejected; the first when none is.
     */
    Backend passThrough() {
        Group first = chat.get(0);
        for (int i = 0; i < first.backends().size(); i++) {
            if (first.queue().inService(i)) {
                return first.backends().get(i);
            }
        }
        return first.backends().get(0);
    }

    /** True when every queue has a backend that answered its last probe: every model can be served. */
    boolean allUp() {
        List<Group> groups = new ArrayList<>(chat);
        groups.add(audio);
        return groups.stream().allMatch(group -> group.backends().stream().anyMatch(b -> probes.get(b).up()));
    }

    @Override
    public void close() {
        probes.values().forEach(BackendProbe::close);
        pools.forEach(UpstreamPool::close);
    }
}
