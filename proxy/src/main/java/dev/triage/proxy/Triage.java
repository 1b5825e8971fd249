package dev.triage.proxy;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.server.Backend;
import dev.triage.proxy.server.ChatSizer;
import dev.triage.proxy.server.HealthRoutes;
import dev.triage.proxy.server.RouteKind;
import dev.triage.proxy.server.RouteTable;
import dev.triage.proxy.server.ScheduledTarget;
import dev.triage.proxy.server.ServerContext;
import dev.triage.proxy.server.TriageServer;
import dev.triage.proxy.upstream.UpstreamPool;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.http.HttpMethod;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Triage: the estimator, the dispatch loop, the backend pools and the server, assembled from
 * a {@link TriageConfig}. {@link Main} runs one per process; tests and benchmarks run one in-process.
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

    private final JobEstimator<Prompt> chatEstimator;
    private final DispatchLoop dispatchLoop;
    private final UpstreamPool chatPool;
    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final TriageServer server;
    private volatile boolean ready;

    private Triage(TriageConfig config) throws InterruptedException {
        chatEstimator = new BaselineEstimator();
        dispatchLoop = new DispatchLoop(Clock.system());
        Duration connectTimeout = config.upstreamTimeout().compareTo(CONNECT_TIMEOUT) < 0 ? config.upstreamTimeout() : CONNECT_TIMEOUT;
        chatPool = new UpstreamPool(config.backend(), connectTimeout, UPSTREAM_IDLE);
        BackendQueue chatQueue = dispatchLoop.addBackend("chat", config.schedulerSettings(config.backend()), config.maxQueueWait());
        Backend chat = new Backend("chat", config.backend(), chatPool, chatQueue);
        RouteTable routes = RouteTable.standard()
                .local(HttpMethod.GET, "/healthz", HealthRoutes.healthz())
                .local(HttpMethod.GET, "/readyz", HealthRoutes.readyz(() -> ready))
                .build();
        ServerContext context = new ServerContext(routes,
                Map.of(RouteKind.CHAT, new ScheduledTarget(chat, new ChatSizer(chatEstimator), config.maxBody())),
                chat, config.policy(), config.upstreamTimeout());
        acceptors = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        try {
            server = TriageServer.bind(config.listen(), context, acceptors, workers);
        } catch (RuntimeException | InterruptedException e) {
            shutdownGroups();
            dispatchLoop.close();
            throw e;
        }
        ready = true;
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

    /** Stops accepting, refuses the waiting requests, and closes every connection and thread. */
    @Override
    public void close() {
        ready = false;
        server.close();
        dispatchLoop.refuseAll();
        shutdownGroups();
        dispatchLoop.close();
        chatPool.close();
        chatEstimator.close();
    }

    private void shutdownGroups() {
        acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
