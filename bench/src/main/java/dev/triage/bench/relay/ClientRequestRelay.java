package dev.triage.bench.relay;

import dev.triage.bench.replay.OpenAiAnswers;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a client's request, limits its answer ({@link AnswerLimit}), opens a connection of its own
 * to the server on the same event loop, and sends it; {@link ServerResponseRelay} streams the answer
 * back. A client that leaves closes that connection, which stops the server's generation.
 */
final class ClientRequestRelay extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ClientRequestRelay.class);

    private final URI upstream;
    private final StreamedTokens streamed;
    private Channel server;

    ClientRequestRelay(URI upstream, StreamedTokens streamed) {
        this.upstream = upstream;
        this.streamed = streamed;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            if (server != null) {
                log.warn("a pipelined request on a busy relay connection; closing it");
                ctx.close();
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            FullHttpRequest limited;
            try {
                limited = AnswerLimit.apply(request, streamed);
            } catch (IllegalArgumentException e) {
                answerError(ctx, HttpResponseStatus.BAD_REQUEST, e.getMessage(), keepAlive);
                return;
            }
            limited.headers().set(HttpHeaderNames.HOST, upstream.getHost() + ":" + upstream.getPort());
            HttpUtil.setKeepAlive(limited, false);
            send(ctx, limited, request.headers().get(AnswerLengthRelay.REQUEST_ID), keepAlive);
        } finally {
            request.release();
        }
    }

    private void send(ChannelHandlerContext ctx, FullHttpRequest limited, String requestId, boolean keepAlive) {
        Channel client = ctx.channel();
        ChannelFuture connect = new Bootstrap()
                .group(client.eventLoop())
                .channel(NioSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline()
                                .addLast("http", new HttpClientCodec())
                                .addLast("relay", new ServerResponseRelay(client, requestId, streamed, keepAlive,
                                        () -> forget(channel)));
                    }
                })
                .connect(upstream.getHost(), upstream.getPort());
        server = connect.channel();
        connect.addListener((ChannelFutureListener) connected -> {
            if (!connected.isSuccess()) {
                limited.release();
                forget(connected.channel());
                answerError(ctx, HttpResponseStatus.BAD_GATEWAY, "the server at " + upstream + " is unreachable: "
                        + connected.cause().getMessage(), keepAlive);
                return;
            }
            if (!client.isActive()) {
                limited.release();
                connected.channel().close();
                return;
            }
            connected.channel().writeAndFlush(limited).addListener((ChannelFutureListener) written -> {
                if (written.isSuccess()) {
                    written.channel().read();
                } else {
                    written.channel().close();
                }
            });
        });
    }

    /** The answer on {@code channel} is over: the client connection may take its next request. */
    private void forget(Channel channel) {
        if (server == channel) {
            server = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (server != null) {
            server.close();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("relay client connection failed", cause);
        ctx.close();
    }

    private static void answerError(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean keepAlive) {
        byte[] body = OpenAiAnswers.error(message, "invalid_request_error", null).getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        HttpUtil.setContentLength(response, body.length);
        HttpUtil.setKeepAlive(response, keepAlive);
        ctx.writeAndFlush(response).addListener(keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
    }
}
