package dev.triage.proxy.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triage.proxy.config.BackendConfig;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls on pooled connections to a real socket backend, on an event loop the test holds: when a
 * failed call is tried again, and when it must not be.
 */
class UpstreamCallTest {

    /** A connection state in {@code /proc/net/tcp}: the peer has closed its side, this side has not. */
    private static final String CLOSE_WAIT = "08";

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoop loop = group.next();
    private FakeOpenAiBackend backend;
    private BackendConfig config;
    private UpstreamPool pool;
    private Channel client;

    @BeforeEach
    void start() throws Exception {
        backend = FakeOpenAiBackend.start(1, Duration.ZERO);
        config = new BackendConfig(URI.create(backend.url()), 1);
        pool = new UpstreamPool(config, Duration.ofSeconds(5), Duration.ofMinutes(1));
        client = new NioSocketChannel(); // never connected: the calls' relay below writes nothing to it
        loop.register(client).sync();
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        client.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        backend.close();
    }

    @Test
    void aConnectionTheBackendClosedWhileIdleIsFoundClosedAndTheRequestSentOnANewOne() throws Exception {
        assertEquals(UpstreamCall.Ending.OK, call("first").get(30, TimeUnit.SECONDS));

        // The loop is kept busy while the backend closes the pooled connection, so the close has reached
        // the socket but has not been handled when the next call is given that connection.
        CountDownLatch closeArrived = new CountDownLatch(1);
        CompletableFuture<CompletableFuture<UpstreamCall.Ending>> second = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                closeArrived.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            second.complete(call("second"));
        });
        List<Integer> closed = new ArrayList<>();
        Await.until("the backend closed the connection waiting for a next request",
                () -> closed.addAll(backend.closeIdleConnections()));
        assertEquals(1, closed.size());
        Await.until("the backend's close reached the pooled connection's socket", () -> closeWaiting(closed.get(0)));
        closeArrived.countDown();

        assertEquals(UpstreamCall.Ending.OK, second.get(30, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS));
        assertEquals(List.of("first", "second"), backend.started());
    }

    @Test
    void aConnectionThatClosesAfterTheRequestWentOutIsNotTriedAgain() throws Exception {
        assertEquals(UpstreamCall.Ending.OK, call("first").get(30, TimeUnit.SECONDS));
        assertEquals(UpstreamCall.Ending.BROKEN, call("[hangup]").get(30, TimeUnit.SECONDS));
        assertEquals(List.of("first", "[hangup]"), backend.started(), "the backend read the request once");
        assertEquals(UpstreamCall.Ending.OK, call("after").get(30, TimeUnit.SECONDS));
    }

    /** Relays a chat with {@code prompt} and completes with how the call ended; call on any thread. */
    private CompletableFuture<UpstreamCall.Ending> call(String prompt) {
        CompletableFuture<UpstreamCall.Ending> ending = new CompletableFuture<>();
        loop.execute(() -> {
            byte[] body = ChatRequests.chat(prompt, 3, false).getBytes(StandardCharsets.UTF_8);
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                    "/v1/chat/completions", Unpooled.wrappedBuffer(body));
            request.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            HttpUtil.setContentLength(request, body.length);
            UpstreamCall.start(pool, config, client, request, Duration.ofSeconds(30), message -> {
                ReferenceCountUtil.release(message);
                return client.newSucceededFuture();
            }, new UpstreamCall.Listener() {
                @Override
                public void responseStarted(HttpResponse head) {
                    assertEquals(200, head.status().code());
                }

                @Override
                public void finished(UpstreamCall.Ending how) {
                    if (how != UpstreamCall.Ending.OK) {
                        ending.complete(how);
                    }
                }

                @Override
                public void relayed() {
                    ending.complete(UpstreamCall.Ending.OK);
                }
            });
        });
        return ending;
    }

    /**
     * True once this machine's kernel has the peer's close of the loopback connection from {@code
     * localPort}: the connection waits for this side's close, or, when the peer's close came as a reset,
     * is no longer listed at all.
     */
    private boolean closeWaiting(int localPort) {
        String port = String.format(Locale.ROOT, ":%04X", localPort);
        String backendPort = String.format(Locale.ROOT, ":%04X", backend.port());
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] fields = line.trim().split("\\s+");
                    if (fields.length > 3 && fields[1].endsWith(port) && fields[2].endsWith(backendPort)) {
                        return fields[3].equals(CLOSE_WAIT);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // The kernel writes these tables a page at a time, so a read while other sockets come and go can
        // miss a line; the peer closed before the first read, so a line missed is one the close has reached.
        return true;
    }
}
