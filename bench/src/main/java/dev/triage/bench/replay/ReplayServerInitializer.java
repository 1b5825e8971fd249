package dev.triage.bench.replay;

import dev.triage.bench.backend.GenerationEngine;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replay backend's pipeline: HTTP/1.1, whole requests up to the size limit, a timer for idle
 * keep-alive connections when one is set, then the handler.
 */
final class ReplayServerInitializer extends ChannelInitializer<SocketChannel> {

    private final GenerationEngine engine;
    private final ReplayBackendSettings settings;
    private final RequestReader reader;
    private final AtomicLong ids = new AtomicLong();
    private final ReplayCounters counters;
    private final RequestListener listener;
    private final ChannelGroup connections;

    ReplayServerInitializer(GenerationEngine engine, ReplayBackendSettings settings, ReplayCounters counters,
            RequestListener listener, ChannelGroup connections) {
        this.engine = engine;
        this.settings = settings;
        this.reader = new RequestReader(settings);
        this.counters = counters;
        this.listener = listener;
        this.connections = connections;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        connections.add(channel);
        channel.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("aggregator", new HttpObjectAggregator(settings.maxRequestBytes()));
        if (!settings.keepAliveTimeout().isZero()) {
            channel.pipeline().addLast("keep-alive-timeout",
                    new IdleStateHandler(0, 0, settings.keepAliveTimeout().toNanos(), TimeUnit.NANOSECONDS));
        }
        channel.pipeline().addLast("replay", new ReplayRequestHandler(engine, reader, settings, ids, counters, listener));
    }
}
