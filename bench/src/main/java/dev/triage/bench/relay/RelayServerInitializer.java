package dev.triage.bench.relay;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.net.URI;

/** The relay's client side: HTTP/1.1, whole requests up to the size limit, then the handler. */
final class RelayServerInitializer extends ChannelInitializer<SocketChannel> {

    private final URI upstream;
    private final StreamedTokens streamed;

    RelayServerInitializer(URI upstream, StreamedTokens streamed) {
        this.upstream = upstream;
        this.streamed = streamed;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        channel.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("aggregator", new HttpObjectAggregator(AnswerLengthRelay.MAX_REQUEST_BYTES))
                .addLast("relay", new ClientRequestRelay(upstream, streamed));
    }
}
