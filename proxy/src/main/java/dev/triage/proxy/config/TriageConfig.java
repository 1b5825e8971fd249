package dev.triage.proxy.config;

import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.SchedulerSettings;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Triage's effective configuration: immutable and validated. Built by {@link ConfigLoader} from, in
 * rising precedence, defaults, a YAML file, environment variables and command-line flags.
 *
 * @param listen where the proxy accepts clients (unresolved; resolved when binding)
 * @param backend the chat/completions backend
 * @param policy the order of waiting requests
 * @param starvationTimeout τ; {@link Duration#ZERO} when off
 * @param maxQueue how many requests may wait per backend
 * @param maxQueueWait how long a request may wait before a 504; {@link Duration#ZERO} for no limit
 * @param estimator the chat estimator's name
 * @param upstreamTimeout how long the backend may stay silent (before its first byte or between two)
 * @param maxBody the largest request body a scheduled chat route accepts, in bytes
 */
public record TriageConfig(
        InetSocketAddress listen,
        BackendConfig backend,
        Policy policy,
        Duration starvationTimeout,
        int maxQueue,
        Duration maxQueueWait,
        String estimator,
        Duration upstreamTimeout,
        long maxBody) {

    /** The scheduler settings of a backend under this configuration. */
    public SchedulerSettings schedulerSettings(BackendConfig target) {
        return new SchedulerSettings(policy, starvationTimeout, maxQueue, target.maxConcurrency());
    }
}
