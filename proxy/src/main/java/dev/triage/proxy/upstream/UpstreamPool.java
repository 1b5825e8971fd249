package dev.triage.proxy.upstream;

import dev.triage.proxy.config.BackendConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.AbstractNioChannel;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.AbstractChannelPoolMap;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.SimpleChannelPool;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Keep-alive connections to one backend, pooled per event loop: a client's request is relayed on a
 * connection that lives on the client's own event loop, so relaying never crosses threads.
 *
 * <p>Connections are read with {@code AUTO_READ} off while in use (the relay reads only after the
 * client took the last chunk). While idle in the pool they are read freely, so that a backend closing
 * an idle connection is noticed at once instead of on the next request; idle ones are closed after
 * {@code idleTimeout}. A connection is read once more as it is lent: a close that reached the socket
 * while its event loop was busy elsewhere has not been handled yet, and is handled then, so that the
 * borrower finds the connection closed before it writes a byte (see {@link UpstreamCall}).
 */
public final class UpstreamPool implements AutoCloseable {

    private static final AttributeKey<Boolean> IDLE = AttributeKey.valueOf("triage.upstream.idle");

    private final AbstractChannelPoolMap<EventLoop, LoopPool> pools;

    public UpstreamPool(BackendConfig backend, Duration connectTimeout, Duration idleTimeout) {
        Bootstrap template = new Bootstrap()
                .channel(NioSocketChannel.class)
                .remoteAddress(backend.host(), backend.port())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
        AbstractChannelPoolHandler handler = new AbstractChannelPoolHandler() {
            @Override
            public void channelCreated(Channel ch) {
                ch.pipeline().addLast("codec", new HttpClientCodec());
                ch.pipeline().addLast("idle-timer", new IdleStateHandler(0, 0, idleTimeout.toMillis(), TimeUnit.MILLISECONDS));
                ch.pipeline().addLast("idle-closer", new IdleConnectionCloser());
            }

            @Override
            public void channelAcquired(Channel ch) {
                if (Boolean.TRUE.equals(ch.attr(IDLE).get())) {
                    // Still marked idle: whatever the read finds (a close, a reset, bytes nobody asked for) closes it.
                    ((AbstractNioChannel.NioUnsafe) ch.unsafe()).read();
                }
                ch.attr(IDLE).set(false);
                ch.config().setAutoRead(false);
            }

            @Override
            public void channelReleased(Channel ch) {
                ch.attr(IDLE).set(true);
                ch.config().setAutoRead(true);
            }
        };
        this.pools = new AbstractChannelPoolMap<>() {
            @Override
            protected LoopPool newPool(EventLoop loop) {
                return new LoopPool(template.clone().group(loop), handler);
            }
        };
    }

    /** A connection on {@code loop}: a pooled idle one, or a new one. */
    public Future<Channel> acquire(EventLoop loop) {
        return pools.get(loop).acquire();
    }

    /** A new connection on {@code loop}, whatever idle ones the pool holds; it joins the pool when released. */
    public Future<Channel> acquireNew(EventLoop loop) {
        return pools.get(loop).acquireNew();
    }

    /** Returns a connection whose last exchange ended cleanly, for reuse. */
    public void release(Channel channel) {
        pools.get((EventLoop) channel.eventLoop()).release(channel);
    }

    /**
     * Closes a connection that must not be reused (an exchange broke off mid-way). A simple pool
     * keeps no count of lent connections, so closing is all there is to it.
     */
    public void discard(Channel channel) {
        channel.close();
    }

    @Override
    public void close() {
        pools.close();
    }

    /** The connections of one event loop; called on that loop only, so a plain field can steer a lease. */
    private static final class LoopPool extends SimpleChannelPool {
        private boolean skipIdle;

        LoopPool(Bootstrap bootstrap, AbstractChannelPoolHandler handler) {
            super(bootstrap, handler, ChannelHealthChecker.ACTIVE);
        }

        Future<Channel> acquireNew() {
            skipIdle = true;
            try {
                return acquire(); // looks for an idle connection at once, on the calling loop
            } finally {
                skipIdle = false;
            }
        }

        @Override
        protected Channel pollChannel() {
            return skipIdle ? null : super.pollChannel();
        }
    }

    /** Closes idle pooled connections that time out or that receive anything (nothing was asked). */
    private static final class IdleConnectionCloser extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (Boolean.TRUE.equals(ctx.channel().attr(IDLE).get())) {
                ReferenceCountUtil.release(msg);
                ctx.close();
            } else {
                ctx.fireChannelRead(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent && Boolean.TRUE.equals(ctx.channel().attr(IDLE).get())) {
                ctx.close();
            } else {
                ctx.fireUserEventTriggered(evt);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (Boolean.TRUE.equals(ctx.channel().attr(IDLE).get())) {
                ctx.close();
            } else {
                ctx.fireExceptionCaught(cause);
            }
        }
    }
}
