package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.HeldWrites;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client write timeout on a channel whose socket takes a write only when the test says so. */
class ClientWriteTimeoutTest {

    private final HeldWrites socket = new HeldWrites();
    /** Well above the 150 ms that a steady client takes a write in below, so that a stalled test thread is no stalled write. */
    private final EmbeddedChannel channel = new EmbeddedChannel(socket, new ClientWriteTimeout(Duration.ofSeconds(1)));

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    private void waitPast(Duration time) {
        long until = System.nanoTime() + time.toNanos();
        Await.until("time passes", () -> {
            channel.runPendingTasks();
            return System.nanoTime() > until || !channel.isOpen();
        });
    }

    @Test
    void aWriteTheSocketNeverTakesClosesTheConnection() {
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
        Await.until("closed", () -> {
            channel.runPendingTasks();
            return !channel.isOpen();
        });
    }

    /**
     * A connection given up on is reset, not closed: a close would leave the response's unsent bytes
     * in the kernel's send buffer, delivered to the client that stopped reading at the pace of TCP's
     * zero-window probes (minutes, seen in the fault-injection runs), each such socket holding its
     * buffer until then.
     */
    @Test
    void aClientThatStoppedReadingIsReset() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        CompletableFuture<Void> givenUp = new CompletableFuture<>();
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.closeFuture().addListener(f -> givenUp.complete(null));
                            ch.pipeline().addLast(new ClientWriteTimeout(Duration.ofMillis(300)), new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelActive(ChannelHandlerContext ctx) {
                                    // 64 MB, more than any kernel's socket buffers hold, so that the writes stall
                                    byte[] piece = new byte[64 * 1024];
                                    for (int i = 0; i < 1024; i++) {
                                        ctx.write(Unpooled.wrappedBuffer(piece));
                                    }
                                    ctx.flush();
                                }
                            });
                        }
                    }).bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            try (Socket client = new Socket()) {
                client.setReceiveBufferSize(4096);
                client.connect(server.localAddress());
                client.setSoTimeout(5_000);
                givenUp.get(10, TimeUnit.SECONDS); // not reading: the server's writes stall, and its timeout fires
                // A close would let the client read what the buffers held, up to the end of the stream; a
                // reset ends its reading with an error, whatever it had already received.
                InputStream in = client.getInputStream();
                assertThrows(SocketException.class, () -> in.transferTo(OutputStream.nullOutputStream()));
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aSlowButSteadyClientIsNotCutOff() {
        for (int i = 0; i < 6; i++) {
            channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
            waitPast(Duration.ofMillis(150));
            socket.pending.remove(0).setSuccess();
        }
        assertTrue(channel.isOpen(), "each write was taken within the limit");
        waitPast(Duration.ofMillis(1_500));
        assertTrue(channel.isOpen(), "nothing is pending: nothing is timed");
    }

    @Test
    void progressOnOneWriteDoesNotExcuseAnotherThatStalls() {
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {2}));
        waitPast(Duration.ofMillis(150));
        socket.pending.remove(0).setSuccess();
        assertTrue(channel.isOpen());
        waitPast(Duration.ofSeconds(5));
        assertFalse(channel.isOpen(), "the second write stalled past the limit");
    }
}
