package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * The whole pipeline of a connection accepted past {@code --max-connections}: it is answered 503
 * {@code too_many_connections} at once, without waiting for its request, and closed. Reading nothing,
 * it holds nothing.
 */
final class OverConnectionLimit extends ChannelInboundHandlerAdapter {

    private final int limit;

    OverConnectionLimit(int limit) {
        this.limit = limit;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Responses.errorAndClose(ctx, ctx.alloc(), TriageError.TOO_MANY_CONNECTIONS,
                "Triage has " + limit + " client connections open, its limit; retry later");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }
}
