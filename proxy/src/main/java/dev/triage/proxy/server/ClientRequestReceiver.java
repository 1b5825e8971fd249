package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads requests off a client connection and hands each to an {@link Exchange} chosen by the
 * {@link RouteTable}: scheduled, local or passed through. One exchange runs at a time per connection,
 * as HTTP/1.1 answers in order; a pipelined request that arrives early is held, and reading pauses,
 * until the current exchange is over.
 *
 * <p>The connection is read with {@code AUTO_READ} off. Between requests, and while a request waits
 * in the queue, one read stays pending, so a client that disconnects is noticed at once and its
 * request withdrawn.
 */
final class ClientRequestReceiver extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ClientRequestReceiver.class);

    /**
     * A body answered before it was read (413) is read on and dropped, up to this many bytes, so the
     * client gets the answer instead of a reset; past it the connection is closed.
     */
    static final long MAX_DISCARDED_BODY = 64L * 1024 * 1024;

    private final ServerContext context;
    private final ArrayDeque<Object> pipelined = new ArrayDeque<>();
    private long discarded;
    private ChannelHandlerContext ctx;
    private Exchange exchange;

    ClientRequestReceiver(ServerContext context) {
        this.context = context;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        context.clients().add(ctx.channel());
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!pipelined.isEmpty() || (exchange != null && exchange.requestComplete())) {
            pipelined.add(msg);
            return;
        }
        dispatch(msg);
        readIfWanted();
    }

    private void dispatch(Object msg) {
        if (msg instanceof HttpContent content && content.decoderResult().isFailure()) {
            malformedBody(content);
        } else if (msg instanceof HttpRequest head) {
            startExchange(head);
        } else if (msg instanceof HttpContent content) {
            if (exchange != null) {
                exchange.onRequestContent(content);
            } else {
                discard(content);
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The rest of a request that was already answered. */
    private void discard(HttpContent content) {
        discarded += content.content().readableBytes();
        content.release();
        if (discarded > MAX_DISCARDED_BODY) {
            ctx.close();
        }
    }

    /**
     * A body whose framing broke (a chunk size that is not hex, say): the request it belongs to is
     * abandoned unsent, as if its client had left, and the connection answered 400 and closed, since
     * where the next request would begin is unknowable.
     */
    private void malformedBody(HttpContent content) {
        Throwable cause = content.decoderResult().cause();
        content.release();
        if (exchange != null) {
            Exchange abandoned = exchange;
            exchange = null;
            context.openExchanges().decrementAndGet();
            abandoned.onClientGone();
        }
        refuseMalformed(cause);
    }

    private void refuseMalformed(Throwable cause) {
        Responses.errorAndClose(ctx, ctx.alloc(), TriageError.INVALID_REQUEST, "malformed HTTP request: " + cause.getMessage());
    }

    private void startExchange(HttpRequest head) {
        discarded = 0;
        if (head.decoderResult().isFailure()) {
            ReferenceCountUtil.release(head);
            refuseMalformed(head.decoderResult().cause());
            return;
        }
        context.openExchanges().incrementAndGet();
        RequestTarget target;
        try {
            target = RequestTarget.parse(head.uri());
        } catch (RequestTarget.Unroutable e) {
            exchange = LocalExchange.badTarget(this, ctx, head, e.getMessage());
            exchange.start();
            return;
        }
        head.setUri(target.originForm());
        RouteTable.Route route = context.routes().resolve(head.method(), target);
        if (route instanceof RouteTable.Scheduled scheduled) {
            exchange = new ScheduledExchange(this, ctx, head, scheduled.kind(), context);
        } else if (route instanceof RouteTable.Local local) {
            TriageError denied = local.admin() ? context.admin().check(head, ctx.channel().remoteAddress()) : null;
            exchange = denied == null ? new LocalExchange(this, ctx, head, local.handler())
                    : LocalExchange.denied(this, ctx, head, denied);
        } else if (route instanceof RouteTable.LocalWrongMethod wrong) {
            exchange = LocalExchange.methodNotAllowed(this, ctx, head, wrong.allowed());
        } else if (route instanceof RouteTable.NonCanonical nonCanonical) {
            exchange = LocalExchange.badTarget(this, ctx, head, RouteTable.pathOf(head.uri())
                    + " is another spelling of " + nonCanonical.canonicalPath() + "; send that path as it is");
        } else if (route instanceof RouteTable.LocalNotFound) {
            exchange = LocalExchange.notFound(this, ctx, head);
        } else {
            exchange = new PassThroughExchange(this, ctx, head, context);
        }
        exchange.start();
    }

    private void readIfWanted() {
        if (pipelined.isEmpty() && (exchange == null || exchange.receiverReads())) {
            ctx.read();
        }
    }

    /**
     * Writes a response Triage makes itself and ends {@code finished} once it is out. The connection
     * closes afterwards when the response says so (the keep-alive handler sees to that).
     */
    void respond(Exchange finished, FullHttpResponse response) {
        ctx.writeAndFlush(response).addListener(f -> exchangeDone(finished));
    }

    /** Called by an exchange when its response is fully written (or can never be). */
    void exchangeDone(Exchange finished) {
        if (exchange != finished) {
            return;
        }
        exchange = null;
        context.openExchanges().decrementAndGet();
        if (!ctx.channel().isActive()) {
            releasePipelined();
            return;
        }
        while (!pipelined.isEmpty() && (exchange == null || !exchange.requestComplete())) {
            dispatch(pipelined.poll());
        }
        readIfWanted();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePipelined();
        if (exchange != null) {
            Exchange gone = exchange;
            exchange = null;
            context.openExchanges().decrementAndGet();
            gone.onClientGone();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (exchange == null) {
                ctx.close(); // an idle keep-alive connection; a request under way has timeouts of its own
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("client connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /** The client is gone: requests it pipelined behind the current one will never be answered. */
    private void releasePipelined() {
        List<String> dropped = new ArrayList<>();
        while (!pipelined.isEmpty()) {
            Object msg = pipelined.poll();
            if (msg instanceof HttpRequest request) {
                dropped.add(request.method() + " " + RouteTable.pathOf(request.uri()));
            }
            ReferenceCountUtil.release(msg);
        }
        if (!dropped.isEmpty()) {
            log.info("client {} left with {} pipelined request{} unanswered: {}", ctx.channel().remoteAddress(),
                    dropped.size(), dropped.size() == 1 ? "" : "s", String.join(", ", dropped));
        }
    }
}
