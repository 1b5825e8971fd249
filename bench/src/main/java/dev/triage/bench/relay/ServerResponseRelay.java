package dev.triage.bench.relay;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams the server's answer back to the client as it comes, one message at a time: the next read
 * from the server waits until the last write to the client has succeeded. Counts the answer's
 * tokens ({@link GeneratedTokenCounter}) against the request id once they are written. A server
 * that closes early closes the client connection; a client that cannot be written to closes the
 * server connection.
 */
final class ServerResponseRelay extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ServerResponseRelay.class);

    private final Channel client;
    private final String requestId;
    private final StreamedTokens streamed;
    private final Runnable finished;
    private final GeneratedTokenCounter counter = new GeneratedTokenCounter();
    private boolean keepAlive;
    private boolean complete;

    /**
     * @param requestId the request's id, null when it has none
     * @param keepAlive whether the client's connection stays open after the answer
     * @param finished called when the answer is over, however it ends (perhaps twice)
     */
    ServerResponseRelay(Channel client, String requestId, StreamedTokens streamed, boolean keepAlive, Runnable finished) {
        this.client = client;
        this.requestId = requestId;
        this.streamed = streamed;
        this.keepAlive = keepAlive;
        this.finished = finished;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (complete) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpResponse response) {
            // A body that ends with the connection cannot end any other way on the client's side either.
            keepAlive &= HttpUtil.isContentLengthSet(response) || HttpUtil.isTransferEncodingChunked(response);
            HttpUtil.setKeepAlive(response, keepAlive);
        }
        int tokens = msg instanceof HttpContent content ? counter.accept(content.content()) : 0;
        boolean last = msg instanceof LastHttpContent;
        complete = last;
        client.writeAndFlush(msg).addListener((ChannelFutureListener) written -> {
            if (!written.isSuccess()) {
                ctx.close();
                return;
            }
            streamed.add(requestId, tokens);
            if (!last) {
                ctx.read();
                return;
            }
            finished.run();
            ctx.close();
            if (!keepAlive) {
                client.close();
            }
        });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        finished.run();
        if (!complete) {
            client.close();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("relay server connection failed", cause);
        ctx.close();
    }
}
