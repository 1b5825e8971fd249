package dev.triage.bench.replay;

import dev.triage.bench.backend.GenerationEngine;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.util.concurrent.atomic.AtomicLong;

/** The replay backend's pipeline: HTTP/1.1, whole requests up to the size limit, then the handler. */
final class ReplayServerInitializer extends ChannelInitializer<SocketChannel> {

    private final GenerationEngine engine;
    private final ReplayBackendSettings settings;
    private final RequestReader reader;
    private final AtomicLong ids = new AtomicLong();

    ReplayServerInitializer(GenerationEngine engine, ReplayBackendSettings settings) {
        this.engine = engine;
        this.settings = settings;
        this.reader = new RequestReader(settings);
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        channel.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("aggregator", new HttpObjectAggregator(settings.maxRequestBytes()))
                .addLast("replay", new ReplayRequestHandler(engine, reader, settings, ids));
    }
}
