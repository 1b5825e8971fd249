package dev.triage.proxy.testing;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * The socket end of an embedded channel that takes writes only when the test says so, as a slow
 * client's socket would: every write's message is released and its promise held in {@link #pending}.
 */
public final class HeldWrites extends ChannelOutboundHandlerAdapter {

    /** The promises of the writes so far, oldest first; completing one is the socket taking it. */
    public final List<ChannelPromise> pending = new ArrayList<>();
    /** How many writes each flush sent: a relay writes, and its writer decides when they go. */
    public final List<Integer> flushed = new ArrayList<>();
    private int unflushed;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ReferenceCountUtil.release(msg);
        pending.add(promise);
        unflushed++;
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (unflushed > 0) {
            flushed.add(unflushed);
            unflushed = 0;
        }
    }
}
