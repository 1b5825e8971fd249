package dev.triage.proxy.server;

import dev.triage.proxy.config.ClientLimits;
import dev.triage.proxy.metrics.RequestObserver;
import dev.triage.proxy.scheduler.Policy;
import java.time.Duration;
import io.netty.channel.group.ChannelGroup;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * What every client connection shares: the routes, where each kind of scheduled request goes, and
 * the backend that unscheduled requests pass through to.
 *
 * @param passThrough the backend an unscheduled request passes through to, asked once a request: one
 *     in service when there is one
 * @param policy the scheduling policy, named in the {@code x-triage-policy} header
 * @param upstreamTimeout how long a backend may stay silent
 * @param clientLimits what a client connection is allowed (timeouts)
 * @param observer hears every scheduled request once it ends (metrics, the request log)
 * @param admin who may use the admin API
 * @param openExchanges how many requests, of any route, are being served right now
 * @param clients every open client connection, so that stopping can close them before the event
 *     loops go (a loop that terminates does not reliably close what is still registered on it)
 * @param tenants whom each scheduled request is served for, when the backends' time is shared among tenants
 */
public record ServerContext(
        RouteTable routes,
        Map<RouteKind, ScheduledTarget> targets,
        Supplier<Backend> passThrough,
        Policy policy,
        Duration upstreamTimeout,
        ClientLimits clientLimits,
        RequestObserver observer,
        AdminAccess admin,
        AtomicInteger openExchanges,
        ChannelGroup clients,
        TenantKeys tenants) {

    public ServerContext {
        targets = Map.copyOf(targets);
    }

    /** The same, for connections to another listener: its own routes, and who may use the admin API there. */
    public ServerContext forListener(RouteTable listenerRoutes, AdminAccess listenerAdmin) {
        return new ServerContext(listenerRoutes, targets, passThrough, policy, upstreamTimeout, clientLimits, observer,
                listenerAdmin, openExchanges, clients, tenants);
    }

    ScheduledTarget target(RouteKind kind) {
        ScheduledTarget target = targets.get(kind);
        if (target == null) {
            throw new IllegalStateException("no backend for " + kind + " routes");
        }
        return target;
    }
}
