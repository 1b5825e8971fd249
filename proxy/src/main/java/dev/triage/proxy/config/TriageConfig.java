package dev.triage.proxy.config;

import dev.triage.proxy.preemption.PreemptionDialect;
import dev.triage.proxy.scheduler.LapsSettings;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.SchedulerSettings;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.scheduler.ewsjf.EwsjfSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Triage's effective configuration: immutable and validated. Built by {@link ConfigLoader} from, in
 * rising precedence, defaults, a YAML file, environment variables and command-line flags.
 *
 * @param listen where the proxy accepts clients (unresolved; resolved when binding)
 * @param backends the chat/completions backends, at least one; requests for a model go to those serving it
 * @param serviceTime the chat backend's seconds per request, per prompt token and per output token
 * @param audio how speech-to-text requests are scheduled
 * @param policy the order of waiting requests
 * @param laps the levels and pause rules of the {@code laps} policy
 * @param preemption how the chat backend continues a paused answer; {@link PreemptionDialect#OFF} never pauses
 * @param ewsjf how EWSJF runs, when the policy is ewsjf
 * @param starvationTimeout τ; {@link Duration#ZERO} when off
 * @param maxQueue how many requests may wait per backend
 * @param maxQueueWait how long a request may wait before a 504; {@link Duration#ZERO} for no limit
 * @param estimator the chat estimator and its model
 * @param learning whether and where Triage learns from its backends' answers
 * @param upstreamTimeout how long the backend may stay silent (before its first byte or between two)
 * @param clientLimits what a client connection is allowed
 * @param maxBody the largest request body a scheduled chat route accepts, in bytes
 * @param adminToken the bearer token of the admin API, or empty for local-only access
 * @param adminListen a separate address for the admin API, or null to serve it on {@code listen}
 * @param healthPath the backend path the readiness probe asks
 * @param probeInterval how often the readiness probe asks each backend
 * @param shutdownGrace how long in-flight requests may run on after a stop signal
 * @param vllmMetrics whether the chat queue is also exported under vLLM's metric names
 * @param forwardPriority whether forwarded chat bodies carry the scheduling rank in vLLM's {@code priority}
 * @param tenants whether and how the backends' time is shared among tenants
 * @param adaptiveConcurrency the bounds within which the chat backend's slots are found from its
 *     speed ({@code --max-concurrency auto}); empty for the fixed {@code max-concurrency}, which is
 *     otherwise the upper bound
 * @param settings every option's effective value, as text, secrets redacted
 */
public record TriageConfig(
        InetSocketAddress listen,
        List<BackendConfig> backends,
        ServiceTimeModel serviceTime,
        AudioConfig audio,
        Policy policy,
        LapsSettings laps,
        PreemptionDialect preemption,
        EwsjfSettings ewsjf,
        Duration starvationTimeout,
        int maxQueue,
        Duration maxQueueWait,
        EstimatorConfig estimator,
        LearningConfig learning,
        Duration upstreamTimeout,
        ClientLimits clientLimits,
        long maxBody,
        String adminToken,
        InetSocketAddress adminListen,
        String healthPath,
        Duration probeInterval,
        Duration shutdownGrace,
        boolean vllmMetrics,
        boolean forwardPriority,
        TenantConfig tenants,
        Optional<AdaptiveConcurrency> adaptiveConcurrency,
        Map<String, String> settings) {

    public TriageConfig {
        backends = List.copyOf(backends);
        if (backends.isEmpty()) {
            throw new IllegalArgumentException("backends: none (expected: at least one)");
        }
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** Every option's effective value, secrets redacted: the record's own would print the admin token. */
    @Override
    public String toString() {
        return "TriageConfig" + settings;
    }

    /** The first chat backend: the only one unless several are configured. */
    public BackendConfig backend() {
        return backends.get(0);
    }

    /** The scheduler settings of a backend under this configuration. */
    public SchedulerSettings schedulerSettings(BackendConfig target) {
        return schedulerSettings(target.maxConcurrency());
    }

    /** The scheduler settings of a queue whose backends run {@code slots} requests at once together. */
    public SchedulerSettings schedulerSettings(int slots) {
        return new SchedulerSettings(policy, starvationTimeout, maxQueue, slots, laps);
    }
}
