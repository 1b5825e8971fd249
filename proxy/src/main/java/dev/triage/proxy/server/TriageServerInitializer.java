package dev.triage.proxy.server;

import dev.triage.proxy.config.ClientLimits;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The client connection's pipeline, and nothing else. */
final class TriageServerInitializer extends ChannelInitializer<SocketChannel> {

    /** Request lines and headers beyond these sizes are refused (400) instead of buffered. */
    static final int MAX_INITIAL_LINE = 8 * 1024;
    static final int MAX_HEADER_SIZE = 32 * 1024;
    static final int MAX_CHUNK_SIZE = 64 * 1024;

    /**
     * A keep-alive connection with no request for this long is closed. One with a request under way is
     * not idle: the header, body, queue, upstream and client write timeouts bound it instead.
     */
    static final Duration CLIENT_IDLE = Duration.ofMinutes(5);

    private final ServerContext context;

    TriageServerInitializer(ServerContext context) {
        this.context = context;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        ClientLimits limits = context.clientLimits();
        // Counted when connections become active, so a burst of simultaneous accepts may pass the cap by a few.
        if (context.clients().size() >= limits.maxConnections()) {
            addHttpHandlers(pipeline);
            pipeline.addLast("over-connection-limit", new OverConnectionLimit(limits.maxConnections()));
            return;
        }
        ClientReadTimeout readTimeout = new ClientReadTimeout(limits.headerTimeout(), limits.bodyTimeout());
        pipeline.addLast("client-write-timeout", new ClientWriteTimeout(limits.writeTimeout()));
        pipeline.addLast("client-read-timeout", readTimeout);
        addHttpHandlers(pipeline);
        pipeline.addLast("client-request-progress", readTimeout.progress());
        addIdleHandler(pipeline);
        pipeline.addLast("client-request-receiver", new ClientRequestReceiver(context));
    }

    private static void addHttpHandlers(ChannelPipeline pipeline) {
        pipeline.addLast("http-codec", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_SIZE, MAX_CHUNK_SIZE));
        pipeline.addLast("keep-alive", new HttpServerKeepAliveHandler());
        pipeline.addLast("http-version", new ClientHttpVersion());
    }

    private static void addIdleHandler(ChannelPipeline pipeline) {
        pipeline.addLast("idle", new IdleStateHandler(0, 0, CLIENT_IDLE.toSeconds(), TimeUnit.SECONDS));
    }
}
