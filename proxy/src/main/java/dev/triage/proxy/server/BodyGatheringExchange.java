package dev.triage.proxy.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * An exchange that reads its whole request body, up to a limit, before acting on it: scheduled
 * routes (the body decides the job's size) and local routes. The receiver keeps reading for it: to
 * gather the body, then to notice a client that leaves.
 */
abstract class BodyGatheringExchange implements Exchange {

    final ClientRequestReceiver receiver;
    final ChannelHandlerContext ctx;
    final HttpRequest head;
    private final long maxBody;
    RequestBody body;
    private boolean requestComplete;

    BodyGatheringExchange(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head, long maxBody) {
        this.receiver = receiver;
        this.ctx = ctx;
        this.head = head;
        this.maxBody = maxBody;
    }

    @Override
    public final void start() {
        body = RequestBody.start(ctx.alloc(), head, maxBody);
        if (body.tooLarge()) {
            bodyTooLarge();
            return;
        }
        Responses.continueIfExpected(ctx, head);
    }

    @Override
    public final void onRequestContent(HttpContent content) {
        requestComplete = content instanceof LastHttpContent;
        switch (body.add(content)) {
            case COMPLETE -> bodyComplete();
            case TOO_LARGE -> bodyTooLarge();
            default -> { }
        }
    }

    @Override
    public final boolean requestComplete() {
        return requestComplete;
    }

    @Override
    public final boolean receiverReads() {
        return true;
    }

    /** The whole body is in {@link #body}. */
    abstract void bodyComplete();

    /** The body is, or would be, larger than the limit; what came of it is already dropped. */
    abstract void bodyTooLarge();

    long maxBody() {
        return maxBody;
    }

    /**
     * The refusal of a body its client has not sent: one that asked to be told first ({@code Expect:
     * 100-continue}, still on the head until Triage answers it) may send no body after a final answer,
     * and its next request could not be told from the body Triage would wait to drop, so the connection
     * ends with the answer.
     */
    final FullHttpResponse closingIfBodyWithheld(FullHttpResponse response) {
        if (HttpUtil.is100ContinueExpected(head)) {
            HttpUtil.setKeepAlive(response, false);
        }
        return response;
    }
}
