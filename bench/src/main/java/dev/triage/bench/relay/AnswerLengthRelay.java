package dev.triage.bench.relay;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A small HTTP relay in front of a server that generates exactly the tokens it is asked for (the
 * random-weight {@code llama-server} of the shared backends), so that a benchmark can give each
 * request its recorded answer length where the proxy under test cannot read it. Triage caps its
 * estimate by a request's own {@code max_tokens}; a workload that put the true lengths there would
 * measure the cap, not the estimator. Instead the client sends the length in a header that Triage
 * passes on untouched, and the relay, between Triage and the server, writes it into the body.
 *
 * <p>Per request, the relay reads two headers:
 * <ul>
 *   <li>{@value #ANSWER_TOKENS}: the whole answer's length in tokens. The relay sets the body's
 *       {@code max_tokens} and {@code n_predict} to it, less what the request id has already
 *       streamed, and drops {@code max_completion_tokens} and this header. A request without it
 *       goes to the server unchanged.
 *   <li>{@value #REQUEST_ID} (optional): the request's id. The relay counts, per id, the tokens of
 *       the streamed answers it has delivered (one per server-sent event that carries generated
 *       text), so a request stopped part way and sent again under the same id — a resumed one —
 *       asks only for the rest. An id that has streamed its whole length asks for one token more.
 * </ul>
 * Everything else goes through as it is; the answer streams back chunk by chunk with backpressure.
 * A client that leaves closes the server connection, so the server stops generating. Each request
 * gets a connection of its own to the server; requests on one client connection are served one
 * after the other (no pipelining).
 *
 * <pre>{@code
 * try (AnswerLengthRelay relay = AnswerLengthRelay.start(URI.create("http://127.0.0.1:38411"))) {
 *     // point Triage's --backend at relay.url(); clients send x-bench-answer-tokens and x-request-id
 * }
 * }</pre>
 */
public final class AnswerLengthRelay implements AutoCloseable {

    /** The header that carries a request's whole answer length. */
    public static final String ANSWER_TOKENS = "x-bench-answer-tokens";

    /** The header that names a request across its resumptions (Triage's own request-id header). */
    public static final String REQUEST_ID = "x-request-id";

    /** The largest request body relayed. */
    static final int MAX_REQUEST_BYTES = 64 * 1024 * 1024;

    private final EventLoopGroup group;
    private final Channel server;
    private final StreamedTokens streamed;

    private AnswerLengthRelay(EventLoopGroup group, Channel server, StreamedTokens streamed) {
        this.group = group;
        this.server = server;
        this.streamed = streamed;
    }

    /** Starts a relay to {@code upstream} ({@code http://host:port}) on a free loopback port. */
    public static AnswerLengthRelay start(URI upstream) throws InterruptedException {
        if (!"http".equals(upstream.getScheme()) || upstream.getHost() == null || upstream.getPort() < 0) {
            throw new IllegalArgumentException("upstream: " + upstream + " (expected: http://host:port)");
        }
        // One thread: the network of both sides and the per-id counts, so the counts need no locks.
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        StreamedTokens streamed = new StreamedTokens();
        try {
            Channel server = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new RelayServerInitializer(upstream, streamed))
                    .bind("127.0.0.1", 0)
                    .sync()
                    .channel();
            return new AnswerLengthRelay(group, server, streamed);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The relay's base URL, {@code http://127.0.0.1:PORT}: what Triage's {@code --backend} names. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** The answer tokens delivered so far to requests with this id. */
    public int streamedTokens(String requestId) throws InterruptedException {
        try {
            return server.eventLoop().submit(() -> streamed.get(requestId)).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("reading the count of " + requestId, e.getCause());
        }
    }

    /** Stops accepting, drops open connections on both sides and frees the thread. */
    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
