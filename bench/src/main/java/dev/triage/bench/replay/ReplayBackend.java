package dev.triage.bench.replay;

import dev.triage.bench.backend.GenerationEngine;
import dev.triage.bench.backend.NettyTimers;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An OpenAI-compatible server that answers every prompt with the length of answer recorded for it,
 * at a configured speed, with a configured number of slots: a stand-in for Ollama, llama.cpp or
 * vLLM whose timing is known exactly, for benchmarks and the demo. It serves OpenAI's
 * {@code POST /v1/chat/completions}, {@code /v1/completions} (both streamed on {@code "stream": true})
 * and {@code /v1/audio/transcriptions}, Ollama's {@code POST /api/chat} and {@code /api/generate}
 * (streamed as JSON lines unless {@code "stream": false}), plus {@code GET /v1/models},
 * {@code /api/tags} and {@code /health}.
 *
 * <p>A request may ask it to fail in the ways a real server fails ({@link ReplayFault}: the
 * {@code x-replay-fault} header), and a listener may hear every request as it arrives: the pieces a
 * fault-injection run needs.
 *
 * <p>One event loop thread does everything: the network, the generation timers and the queue of
 * requests waiting for a slot, so the timing model ({@link GenerationEngine}) needs no locks.
 *
 * <pre>{@code
 * try (ReplayBackend backend = ReplayBackend.start(settings)) {
 *     URI backendUri = backend.uri();        // http://127.0.0.1:PORT: Triage's --backend
 *     ...
 * }
 * }</pre>
 */
public final class ReplayBackend implements AutoCloseable {

    private final ReplayBackendSettings settings;
    private final EventLoopGroup group;
    private final GenerationEngine engine;
    private final ReplayCounters counters;
    private final Channel server;
    /** The open client connections, closed with the server: a shut-down event loop does not close them itself. */
    private final ChannelGroup connections;

    private ReplayBackend(ReplayBackendSettings settings, EventLoopGroup group, GenerationEngine engine,
            ReplayCounters counters, Channel server, ChannelGroup connections) {
        this.settings = settings;
        this.group = group;
        this.engine = engine;
        this.counters = counters;
        this.server = server;
        this.connections = connections;
    }

    /** Binds and returns once the server accepts connections. */
    public static ReplayBackend start(ReplayBackendSettings settings) throws InterruptedException {
        return start(settings, RequestListener.NONE);
    }

    /** Binds and returns once the server accepts connections; {@code listener} hears every request. */
    public static ReplayBackend start(ReplayBackendSettings settings, RequestListener listener) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            GenerationEngine engine = new GenerationEngine(new NettyTimers(group.next()), settings.slots(),
                    settings.speed().secondsPerToken(), settings.batchSlowdown());
            ReplayCounters counters = new ReplayCounters();
            ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
            Channel server = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ReplayServerInitializer(engine, settings, counters, listener, connections))
                    .bind(settings.host(), settings.port())
                    .sync()
                    .channel();
            return new ReplayBackend(settings, group, engine, counters, server, connections);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /**
     * The backend's address, {@code http://HOST:PORT}: what Triage's {@code --backend} takes. OpenAI
     * clients asking it directly add {@code /v1}; Ollama's clients take it as it is.
     */
    public URI uri() {
        return URI.create("http://" + hostForUri() + ":" + port());
    }

    public ReplayBackendSettings settings() {
        return settings;
    }

    /**
     * The backend's own log of what it served: the answer length, in tokens, of each generation it
     * completed, in the order it completed them (the last 1,024). With one slot, that is the order in
     * which a scheduler in front of it released the requests.
     */
    public List<Integer> completedTokens() {
        return engine.completedTokens();
    }

    /** Faults struck so far: requests it answered with a {@link ReplayFault} instead of an answer. */
    public long faultsStruck() {
        return counters.faults.get();
    }

    /** Connections it closed because they stayed idle between requests past the keep-alive timeout. */
    public long keepAliveClosures() {
        return counters.keepAliveClosures.get();
    }

    /** Blocks until the server is closed (by {@link #close()} from another thread). */
    public void awaitClose() throws InterruptedException {
        server.closeFuture().sync();
    }

    /** Stops accepting, drops open connections (cancelling their generations) and frees the thread. */
    @Override
    public void close() {
        server.close().syncUninterruptibly();
        connections.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private String hostForUri() {
        String host = settings.host();
        return host.contains(":") ? "[" + host + "]" : host;
    }
}
