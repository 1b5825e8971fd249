package dev.triage.proxy.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.nio.channels.UnresolvedAddressException;

/**
 * The listening socket: binds, hands each accepted connection its pipeline, and stops accepting on
 * {@link #close()} (connections already open carry on).
 */
public final class TriageServer implements AutoCloseable {

    private final Channel listener;

    private TriageServer(Channel listener) {
        this.listener = listener;
    }

    /**
     * Binds {@code address} (resolved now) and starts accepting.
     *
     * @param option the option that names the address, for the message when it cannot be bound
     * @throws IllegalStateException naming the option, the address and the reason when it cannot be bound (in use,
     *     not a local address, an unknown host)
     */
    public static TriageServer bind(String option, InetSocketAddress address, ServerContext context, EventLoopGroup acceptors,
            EventLoopGroup workers) throws InterruptedException {
        InetSocketAddress resolved = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        ChannelFuture bound = new ServerBootstrap()
                .group(acceptors, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new TriageServerInitializer(context))
                .bind(resolved)
                .await();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            String reason = cause instanceof UnresolvedAddressException ? "unknown host"
                    : cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
            throw new IllegalStateException(option + " " + address.getHostString() + ":" + address.getPort() + ": " + reason,
                    cause);
        }
        return new TriageServer(bound.channel());
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** Stops accepting new connections. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
    }
}
