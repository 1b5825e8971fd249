package dev.triage.proxy;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.metrics.RequestLog;
import dev.triage.proxy.metrics.TriageMetrics;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.server.AdminAccess;
import dev.triage.proxy.server.Backend;
import dev.triage.proxy.server.ChatSizer;
import dev.triage.proxy.server.LocalRoutes;
import dev.triage.proxy.server.RouteKind;
import dev.triage.proxy.server.RouteTable;
import dev.triage.proxy.server.ScheduledTarget;
import dev.triage.proxy.server.ServerContext;
import dev.triage.proxy.server.TriageServer;
import dev.triage.proxy.upstream.BackendProbe;
import dev.triage.proxy.upstream.UpstreamPool;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Triage: the estimator, the dispatch loop, the backend pools and probes, the metrics and
 * the server, assembled from a {@link TriageConfig}. {@link Main} runs one per process; tests and
 * benchmarks run one in-process.
 *
 * <pre>{@code
 * try (Triage triage = Triage.start(config)) {
 *     int port = triage.address().getPort();
 *     ...
 * }
 * }</pre>
 */
public final class Triage implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Triage.class);

    /** Idle pooled backend connections are closed after this; below common server keep-alive timeouts. */
    static final Duration UPSTREAM_IDLE = Duration.ofSeconds(30);
    /** Longest wait for a TCP connection to a backend. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How often readiness asks the backend whether it answers. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);

    private final TriageConfig config;
    private final JobEstimator<Prompt> chatEstimator;
    private final TriageMetrics metrics;
    private final DispatchLoop dispatchLoop;
    private final UpstreamPool chatPool;
    private final BackendProbe chatProbe;
    private final AtomicInteger openExchanges = new AtomicInteger();
    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final TriageServer server;
    private volatile boolean stopping;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Triage(TriageConfig config) throws InterruptedException {
        this.config = config;
        chatEstimator = new BaselineEstimator();
        metrics = new TriageMetrics();
        dispatchLoop = new DispatchLoop(Clock.system());
        Duration connectTimeout = config.upstreamTimeout().compareTo(CONNECT_TIMEOUT) < 0 ? config.upstreamTimeout() : CONNECT_TIMEOUT;
        chatPool = new UpstreamPool(config.backend(), connectTimeout, UPSTREAM_IDLE);
        BackendQueue chatQueue = dispatchLoop.addBackend("chat", config.schedulerSettings(config.backend()), config.maxQueueWait());
        metrics.bindQueue(chatQueue);
        chatProbe = BackendProbe.start(config.backend(), config.healthPath(), PROBE_INTERVAL);
        Backend chat = new Backend("chat", config.backend(), chatPool, chatQueue);
        RouteTable routes = RouteTable.standard()
                .local(HttpMethod.GET, "/healthz", LocalRoutes.healthz())
                .local(HttpMethod.GET, "/readyz", LocalRoutes.readyz(this::ready))
                .local(HttpMethod.GET, "/metrics", LocalRoutes.metrics(metrics))
                .admin(HttpMethod.GET, "/triage/queue", LocalRoutes.queue(dispatchLoop.backends()))
                .admin(HttpMethod.GET, "/triage/config", LocalRoutes.config(config.settings()))
                .build();
        ServerContext context = new ServerContext(routes,
                Map.of(RouteKind.CHAT, new ScheduledTarget(chat,
                        new ChatSizer(chatEstimator, metrics.estimatorTimer(chatEstimator.name())), config.maxBody())),
                chat, config.policy(), config.upstreamTimeout(), metrics.andThen(new RequestLog()),
                new AdminAccess(config.adminToken()), openExchanges);
        acceptors = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("triage-accept"), NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("triage-io"), NioIoHandler.newFactory());
        metrics.bindEventLoops(workers);
        try {
            server = TriageServer.bind(config.listen(), context, acceptors, workers);
        } catch (RuntimeException | InterruptedException e) {
            releaseResources();
            throw e;
        }
        log.info("listening on {}, backend {} ({} slot{}), policy {}, starvation timeout {}, estimator {}",
                server.address(), config.backend().url(), config.backend().maxConcurrency(),
                config.backend().maxConcurrency() == 1 ? "" : "s", config.policy().label(),
                config.starvationTimeout().isZero() ? "off" : config.starvationTimeout(), chatEstimator.name());
    }

    /**
     * Starts Triage as configured.
     *
     * @throws InterruptedException if interrupted while binding
     * @throws RuntimeException if the listen address cannot be bound
     */
    public static Triage start(TriageConfig config) throws InterruptedException {
        return new Triage(config);
    }

    /** The address the server listens on (with the real port when the configured one was 0). */
    public InetSocketAddress address() {
        return server.address();
    }

    /** Every backend's queue, the chat backend's first. */
    public List<BackendQueue> queues() {
        return dispatchLoop.backends();
    }

    /** Ready: not stopping, and the backend answered its last probe. */
    public boolean ready() {
        return !stopping && chatProbe.up();
    }

    /**
     * Stops gracefully: no new connections, waiting requests answered 503, requests in flight given
     * up to the configured grace to finish; then everything is closed.
     */
    public void shutdown() {
        stopping = true;
        server.close();
        dispatchLoop.refuseAll();
        long deadline = System.nanoTime() + config.shutdownGrace().toNanos();
        // Refused requests leave within a moment; what stays open is in flight.
        while (openExchanges.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        int unfinished = openExchanges.get();
        if (unfinished > 0) {
            log.warn("shutting down with {} request{} still in flight after {}", unfinished, unfinished == 1 ? "" : "s",
                    config.shutdownGrace());
        }
        close();
    }

    /** Stops at once: waiting requests are refused and open connections closed. */
    @Override
    public void close() {
        stopping = true;
        server.close();
        dispatchLoop.refuseAll();
        releaseResources();
    }

    private void releaseResources() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        dispatchLoop.close();
        chatProbe.close();
        chatPool.close();
        metrics.close();
        chatEstimator.close();
    }
}
