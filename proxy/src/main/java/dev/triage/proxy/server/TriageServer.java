package dev.triage.proxy.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;

/**
 * The listening socket: binds, hands each accepted connection its pipeline, and stops accepting on
 * {@link #close()} (connections already open carry on).
 */
public final class TriageServer implements AutoCloseable {

    private final Channel listener;

    private TriageServer(Channel listener) {
        this.listener = listener;
    }

    /** Binds {@code address} (resolved now) and starts accepting. */
    public static TriageServer bind(InetSocketAddress address, ServerContext context, EventLoopGroup acceptors,
            EventLoopGroup workers) throws InterruptedException {
        InetSocketAddress resolved = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        Channel channel = new ServerBootstrap()
                .group(acceptors, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new TriageServerInitializer(context))
                .bind(resolved)
                .sync()
                .channel();
        return new TriageServer(channel);
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
