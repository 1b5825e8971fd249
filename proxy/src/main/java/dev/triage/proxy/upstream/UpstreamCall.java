package dev.triage.proxy.upstream;

import dev.triage.proxy.concurrent.StallTimer;
import dev.triage.proxy.config.BackendConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request relayed to a backend and its response relayed back to the client, chunk by chunk:
 * the connection from the pool, the request out, the response in, and how the call ended. The
 * response goes to the client through a {@link ClientResponseWriter} (never aggregated, with
 * backpressure), and a {@link StallTimer} fails a backend that stays silent while it is asked for
 * its next message (the upstream timeout).
 *
 * <p>A pooled connection that the backend closed while it sat idle is found closed when lent (the
 * pool reads it then), before a byte of the request went to it: the call then tries once more on a
 * new connection ({@link #sentNothing}). Once a byte may have left, a failure is final: the backend
 * may have read the request and begun on it.
 *
 * <p>Runs entirely on the client's event loop (the pool lends connections on that loop). The
 * listener hears {@link Listener#finished} exactly once, when the backend is done with the request
 * however that happened; that is when a scheduling slot is freed. It may hear it before
 * {@link #start} has returned, when the call fails at once.
 */
public final class UpstreamCall {

    private static final Logger log = LoggerFactory.getLogger(UpstreamCall.class);

    /** How a call ended, as far as the backend is concerned. */
    public enum Ending {
        /** The whole response was read from the backend. */
        OK,
        /** No connection to the backend could be made. */
        UNREACHABLE,
        /** The backend stayed silent longer than the upstream timeout. */
        TIMEOUT,
        /** The backend closed the connection early or sent something that is not HTTP. */
        BROKEN,
        /**
         * The call was abandoned (its client went away, or it was paused); the backend connection was
         * closed so the backend stops working.
         */
        CANCELLED
    }

    /**
     * Writes what the backend sends to the client: each message of the response in turn (the head,
     * then the body's chunks), hop-by-hop headers already removed. It owns the message, writes
     * without flushing (the call flushes the client at the end of each backend read, and after the
     * last message), and returns the future of the write it made, or a succeeded one when it wrote
     * nothing: the backend is read again only once that future succeeds. Called on the client's
     * event loop.
     *
     * <pre>{@code
     * UpstreamCall.ResponseRelay asItComes = client::write;
     * }</pre>
     */
    @FunctionalInterface
    public interface ResponseRelay {
        ChannelFuture relay(Object message);
    }

    /** Hears a call's progress; every method is called on the client's event loop. */
    public interface Listener {

        /** The request head went out: a streamed request body may now flow. */
        default void connected() {}

        /** The backend's response head arrived (its first byte). */
        default void responseStarted(HttpResponse head) {}

        /** The backend is done with this request. Called exactly once, unless {@link #finishedUnsent} is. */
        void finished(Ending ending);

        /**
         * The call failed before a byte of the request went to the backend, which never saw it: another
         * backend may be asked instead. Called, exactly once, instead of {@link #finished}; by default, is it.
         */
        default void finishedUnsent(Ending ending) {
            finished(ending);
        }

        /** After a {@link Ending#OK} ending: the client's socket took the response's last byte. */
        void relayed();
    }

    /** Where a call is. */
    private enum State {
        /** Waiting for a pooled connection; request body chunks are held until it comes. */
        CONNECTING,
        /** Holding the connection: the request goes out and the response comes back. */
        EXCHANGING,
        /** The backend is done with the call, however it ended; nothing more happens. */
        FINISHED
    }

    private final UpstreamPool pool;
    private final BackendConfig backend;
    private final EventLoop loop;
    private final HttpRequest request;
    private final Listener listener;
    private final StallTimer timeout;
    private final ClientResponseWriter writer;
    private final ArrayDeque<PendingContent> pendingBody = new ArrayDeque<>();

    private State state = State.CONNECTING;
    private Channel upstream;
    private OriginResponseReceiver receiver;
    /** The request's last byte was written: with a keep-alive response, the connection can serve again. */
    private boolean requestSent;
    private boolean upstreamKeepAlive;
    /** An interim response's head was skipped: the empty end the decoder gives it follows, and is skipped too. */
    private boolean skippingInterim;
    /** A new connection was asked for after a lent one was found closed: there is no second retry. */
    private boolean retried;

    /** A chunk of a streamed request body that arrived before the connection did. */
    private record PendingContent(HttpContent content, Runnable whenWritten) {}

    private UpstreamCall(UpstreamPool pool, BackendConfig backend, Channel client, HttpRequest request, Duration timeout,
            ResponseRelay relay, Listener listener) {
        this.pool = pool;
        this.backend = backend;
        this.loop = client.eventLoop();
        this.request = request;
        this.listener = listener;
        this.timeout = new StallTimer(loop, timeout, this::timedOut);
        this.writer = new ClientResponseWriter(client, relay, this::readUpstream, listener::relayed);
    }

    /**
     * Starts relaying {@code request} to the backend. A {@link FullHttpRequest} is sent whole (the
     * call takes its reference); any other request's body follows through {@link #sendContent}. The
     * request's headers are rewritten for the backend (hop-by-hop headers removed, {@code Host} set,
     * the backend's path prefix added). Call on the client's event loop.
     *
     * @param relay writes the response to the client ({@code client::write} relays it as it comes)
     */
    public static UpstreamCall start(UpstreamPool pool, BackendConfig backend, Channel client, HttpRequest request,
            Duration timeout, ResponseRelay relay, Listener listener) {
        UpstreamCall call = new UpstreamCall(pool, backend, client, request, timeout, relay, listener);
        call.prepareRequest();
        Future<Channel> connection = pool.acquire(call.loop);
        connection.addListener(f -> call.connectionReady(connection));
        return call;
    }

    /**
     * Forwards a chunk of a streamed request body; {@code whenWritten} runs once the backend's
     * socket took it (the moment to read more from the client). Takes ownership of {@code content}.
     */
    public void sendContent(HttpContent content, Runnable whenWritten) {
        switch (state) {
            case CONNECTING -> pendingBody.add(new PendingContent(content, whenWritten));
            case EXCHANGING -> {
                writeBody(content, whenWritten);
                upstream.flush();
            }
            case FINISHED -> content.release();
        }
    }

    /**
     * Abandons the call (its client went away, or it is paused): closes the backend connection so the
     * backend stops generating.
     */
    public void cancel() {
        fail(Ending.CANCELLED);
    }

    private void prepareRequest() {
        boolean hasBody = HopByHopHeaders.requestHasBody(request);
        HopByHopHeaders.strip(request, hasBody);
        request.headers().set(HttpHeaderNames.HOST, backend.authority());
        request.setUri(backend.pathPrefix() + request.uri());
    }

    private void connectionReady(Future<Channel> connection) {
        if (!connection.isSuccess()) {
            log.debug("backend {} unreachable: {}", backend.url(), connection.cause().toString());
            sentNothing(Ending.UNREACHABLE);
            return;
        }
        Channel channel = connection.getNow();
        if (state == State.FINISHED) {
            // Cancelled while connecting: the connection is untouched and can serve someone else.
            pool.release(channel);
            return;
        }
        if (!channel.isActive()) {
            log.debug("backend {} had closed the connection it was lent", backend.url());
            pool.discard(channel);
            sentNothing(Ending.BROKEN);
            return;
        }
        state = State.EXCHANGING;
        upstream = channel;
        receiver = new OriginResponseReceiver();
        upstream.pipeline().addLast("origin-response", receiver);
        upstream.write(request).addListener(f -> {
            if (!f.isSuccess()) {
                requestWriteFailed(f.cause());
            } else if (request instanceof FullHttpRequest) {
                // Sent once written, not once handed to the socket: an answer that comes before the whole
                // body went out leaves the connection with the rest of the body still to write.
                requestSent = true;
            }
        });
        while (!pendingBody.isEmpty()) {
            PendingContent pending = pendingBody.poll();
            writeBody(pending.content(), pending.whenWritten());
        }
        upstream.flush();
        if (state == State.FINISHED) {
            return; // the write failed at once
        }
        listener.connected();
        readUpstream();
    }

    /**
     * An attempt ended before a byte of the request went to the backend: the one place that decides
     * whether to try again. A connection found closed is retried once, on a new connection; a backend
     * that could not be reached is not (a new connection would meet the same), nor a second failure.
     */
    private void sentNothing(Ending ending) {
        if (ending == Ending.UNREACHABLE || retried) {
            fail(ending, true);
            return;
        }
        retried = true;
        Future<Channel> connection = pool.acquireNew(loop);
        connection.addListener(f -> connectionReady(connection));
    }

    private void writeBody(HttpContent content, Runnable whenWritten) {
        boolean last = content instanceof LastHttpContent;
        upstream.write(content).addListener(f -> {
            if (!f.isSuccess()) {
                requestWriteFailed(f.cause());
                return;
            }
            if (last) {
                requestSent = true;
            }
            whenWritten.run();
        });
    }

    private void requestWriteFailed(Throwable cause) {
        // A backend may answer and close before it has read the whole body (an early 4xx): then the
        // answer is what counts, and the connection is simply not reused.
        if (!writer.headWritten()) {
            log.debug("writing to backend {} failed: {}", backend.url(), cause.toString());
            fail(Ending.BROKEN);
        }
    }

    private void readUpstream() {
        timeout.waiting();
        upstream.read();
    }

    private void timedOut(long silentNanos) {
        log.debug("backend {} silent for {} ms", backend.url(), TimeUnit.NANOSECONDS.toMillis(silentNanos));
        fail(Ending.TIMEOUT);
    }

    private void relay(Object msg) {
        timeout.answered();
        if (msg instanceof DecoderResultProvider decoded && decoded.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            log.debug("malformed response from backend {}: {}", backend.url(), decoded.decoderResult().cause().toString());
            fail(Ending.BROKEN);
            return;
        }
        if (skippingInterim && msg instanceof LastHttpContent) {
            skippingInterim = false;
            ReferenceCountUtil.release(msg);
            readUpstream();
            return;
        }
        if (msg instanceof HttpResponse head) {
            if (head.status().codeClass() == HttpStatusClass.INFORMATIONAL
                    && head.status().code() != HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                // An interim answer (100 Continue, 103 Early Hints): the client already had its own 100, and
                // hints are a browser's. The decoder follows its head with an empty end, which would end the
                // call as if the answer were whole: wait for the real answer instead.
                skippingInterim = true;
                ReferenceCountUtil.release(msg);
                return;
            }
            upstreamKeepAlive = HttpUtil.isKeepAlive(head);
            HopByHopHeaders.strip(head, responseHasBody(head));
            listener.responseStarted(head);
        }
        if (msg instanceof LastHttpContent) {
            finishOk();
        }
        writer.write((HttpObject) msg);
    }

    private boolean responseHasBody(HttpResponse head) {
        int code = head.status().code();
        return !request.method().equals(HttpMethod.HEAD) && code != 204 && code != 304;
    }

    private void finishOk() {
        state = State.FINISHED;
        timeout.stop();
        writer.stop(); // the connection goes back to the pool; chunks still being written must not read it
        detachReceiver();
        if (upstreamKeepAlive && requestSent) {
            pool.release(upstream);
        } else {
            pool.discard(upstream);
        }
        listener.finished(Ending.OK);
    }

    private void fail(Ending ending) {
        fail(ending, false);
    }

    /** @param unsent true when not a byte of the request went to the backend */
    private void fail(Ending ending, boolean unsent) {
        if (state == State.FINISHED) {
            return;
        }
        State was = state;
        state = State.FINISHED;
        timeout.stop();
        writer.stop();
        while (!pendingBody.isEmpty()) {
            pendingBody.poll().content().release();
        }
        if (was == State.CONNECTING) {
            ReferenceCountUtil.release(request); // never written, so never released by a write
        } else {
            detachReceiver();
            pool.discard(upstream);
        }
        if (unsent) {
            listener.finishedUnsent(ending);
        } else {
            listener.finished(ending);
        }
    }

    private void detachReceiver() {
        if (upstream.pipeline().context(receiver) != null) {
            upstream.pipeline().remove(receiver);
        }
    }

    /** The handler on the backend connection while this call holds it. */
    private final class OriginResponseReceiver extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (state == State.FINISHED) {
                ReferenceCountUtil.release(msg);
                return;
            }
            relay(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            writer.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (state != State.FINISHED) {
                log.debug("backend {} closed the connection mid-response", backend.url());
                fail(Ending.BROKEN);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("backend {} connection failed: {}", backend.url(), cause.toString());
            fail(Ending.BROKEN);
        }
    }
}
