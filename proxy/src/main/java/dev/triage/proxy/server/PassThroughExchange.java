package dev.triage.proxy.server;

import dev.triage.proxy.api.OllamaApi;
import dev.triage.proxy.upstream.UpstreamCall;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;

/**
 * A request Triage does not schedule ({@code /v1/models}, {@code /api/tags}, embeddings, ...): relayed
 * at once, never queued, holding no backend slot. Its body is streamed to the backend as it arrives,
 * the client read again only once the backend's socket took the previous chunk. A backend silent for
 * {@code --upstream-timeout} fails it, except on the routes that move a model ({@link OllamaApi#movesModels}).
 */
final class PassThroughExchange implements Exchange, UpstreamCall.Listener {

    private final ClientRequestReceiver receiver;
    private final ChannelHandlerContext ctx;
    private final HttpRequest head;
    /** The path the client asked for (the call rewrites the head's for the backend). */
    private final String path;
    private final ServerContext context;
    private UpstreamCall call;
    /** Where it is relayed: chosen once, at its start. */
    private Backend backend;
    private boolean requestComplete;
    private boolean responseStarted;
    private boolean over;

    PassThroughExchange(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head, ServerContext context) {
        this.receiver = receiver;
        this.ctx = ctx;
        this.head = head;
        this.path = RouteTable.pathOf(head.uri());
        this.context = context;
    }

    @Override
    public void start() {
        Responses.continueIfExpected(ctx, head);
        backend = context.passThrough().get();
        Duration silenceLimit = OllamaApi.movesModels(path) ? Duration.ZERO : context.upstreamTimeout();
        call = UpstreamCall.start(backend.pool(), backend.config(), ctx.channel(), head, silenceLimit, ctx.channel()::write, this);
    }

    @Override
    public void onRequestContent(HttpContent content) {
        requestComplete = content instanceof LastHttpContent;
        if (over) {
            content.release();
            return;
        }
        call.sendContent(content, this::readMoreBody);
    }

    private void readMoreBody() {
        if (!requestComplete && !over) {
            ctx.read();
        }
    }

    @Override
    public boolean requestComplete() {
        return requestComplete;
    }

    @Override
    public boolean receiverReads() {
        return requestComplete;
    }

    @Override
    public void connected() {
        readMoreBody();
    }

    @Override
    public void responseStarted(HttpResponse head) {
        responseStarted = true;
    }

    @Override
    public void finished(UpstreamCall.Ending ending) {
        switch (ending) {
            case OK -> { }
            case CANCELLED -> over = true;
            default -> fail(UpstreamFailure.of(ending));
        }
    }

    @Override
    public void relayed() {
        over = true;
        // A backend may answer before the body is through (a 401 to a large upload): the receiver reads
        // the rest and drops it, as for an answered scheduled request. Closed with the rest unread, the
        // connection would be reset, and the client could lose the answer it was sent.
        receiver.exchangeDone(this);
    }

    @Override
    public void onClientGone() {
        over = true;
        call.cancel();
    }

    /** May come before {@link UpstreamCall#start} has returned the call, when it fails at once. */
    private void fail(UpstreamFailure failure) {
        over = true;
        if (responseStarted) {
            ctx.close();
            return;
        }
        FullHttpResponse response = Responses.error(ctx.alloc(), path, failure.error(), failure.message(backend.config()),
                null);
        if (!requestComplete) {
            HttpUtil.setKeepAlive(response, false); // the unread rest of the body ends with the connection
        }
        receiver.respond(this, response);
    }
}
