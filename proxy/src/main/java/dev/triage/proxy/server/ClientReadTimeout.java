package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.concurrent.StallTimer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds how long a client may take to send a request, so that a slow or silent client cannot hold
 * a connection (and, on a scheduled route, a gathered body) indefinitely: the head must be complete
 * within the header timeout of its first byte (a head trickled a byte at a time is cut off), and a
 * body may not stall longer than the body timeout while Triage waits to read it (a
 * {@code Content-Length: 30} with no body is cut off). A late head is answered 408 and the
 * connection closed; a stalled body closes the connection, which ends its exchange as a departed
 * client does.
 *
 * <p>It sits before the HTTP codec, where it sees the raw bytes and every read Triage asks for; its
 * {@link #progress()} handler sits after the codec, where it sees where requests begin and end. A
 * connection between requests is the idle handler's; one whose request is complete is timed by the
 * queue, the upstream and the client write timeouts.
 */
final class ClientReadTimeout extends ChannelDuplexHandler {

    private static final Logger log = LoggerFactory.getLogger(ClientReadTimeout.class);

    private final Duration headerTimeout;
    private final Duration bodyTimeout;
    private ChannelHandlerContext ctx;
    private StallTimer bodyStall;
    private ScheduledFuture<?> headerDeadline;
    /** Bytes of a request have arrived and its last byte has not. */
    private boolean inRequest;
    private boolean headComplete;

    ClientReadTimeout(Duration headerTimeout, Duration bodyTimeout) {
        this.headerTimeout = headerTimeout;
        this.bodyTimeout = bodyTimeout;
    }

    /** The handler that goes after the HTTP codec: it tells this one where requests begin and end. */
    ChannelInboundHandlerAdapter progress() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext context, Object msg) {
                if (msg instanceof HttpRequest) {
                    headArrived();
                }
                if (msg instanceof LastHttpContent) {
                    requestArrived();
                }
                context.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
        bodyStall = new StallTimer(context.executor(), bodyTimeout, stalledNanos -> bodyStalled(stalledNanos));
    }

    @Override
    public void read(ChannelHandlerContext context) {
        if (inRequest && headComplete) {
            bodyStall.waiting(); // only a wait Triage asked for counts against the client
        }
        context.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
            bodyStall.answered();
            if (!inRequest) {
                inRequest = true;
                headComplete = false;
                headerDeadline = context.executor().schedule(this::headerLate, headerTimeout.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        context.fireChannelRead(msg);
    }

    private void headArrived() {
        // A pipelined request's head may come in the read that ended the one before it: the bytes read
        // after it are its body, and must not start a header deadline of their own.
        inRequest = true;
        headComplete = true;
        cancelHeaderDeadline();
    }

    private void requestArrived() {
        inRequest = false;
        bodyStall.answered();
    }

    private void headerLate() {
        headerDeadline = null;
        log.debug("client {} sent no complete request head within {}; closing", ctx.channel().remoteAddress(), headerTimeout);
        // From the pipeline's tail: this handler sits before the codec, which must encode the answer.
        Responses.errorAndClose(ctx.channel(), ctx.alloc(), TriageError.REQUEST_TIMEOUT,
                "the request head took longer than " + headerTimeout.toSeconds() + " s");
    }

    private void bodyStalled(long stalledNanos) {
        log.debug("client {} sent none of its request body for {} ms; closing", ctx.channel().remoteAddress(),
                TimeUnit.NANOSECONDS.toMillis(stalledNanos));
        ctx.close();
    }

    private void cancelHeaderDeadline() {
        if (headerDeadline != null) {
            headerDeadline.cancel(false);
            headerDeadline = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        cancelHeaderDeadline();
        bodyStall.stop();
        context.fireChannelInactive();
    }
}
