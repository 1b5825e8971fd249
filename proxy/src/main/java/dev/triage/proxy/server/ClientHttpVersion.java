package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Speaks HTTP/1.x only, and to each client in its own version, whatever version the backend answered in. A request line of another major
 * version ({@code PRI * HTTP/2.0}, the HTTP/2 preface, or {@code HTTP/9.9}) is answered 505 and the
 * connection closed: it is never handed on, so never forwarded. A response to an HTTP/1.0 request is
 * sent as HTTP/1.0: a body of unknown length goes without chunked encoding (which HTTP/1.0 does not
 * know), delimited by the connection's close instead, as RFC 9112 asks.
 *
 * <p>Sits between the keep-alive handler and the receiver, so that the keep-alive handler sees the
 * response as it will go out (and closes the connection after a close-delimited one).
 */
final class ClientHttpVersion extends ChannelDuplexHandler {

    /** The versions of the requests not answered yet, oldest first (a client may pipeline). */
    private final ArrayDeque<HttpVersion> unanswered = new ArrayDeque<>();
    private boolean refused;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && request.decoderResult().isSuccess()) {
            HttpVersion version = request.protocolVersion();
            if (version.majorVersion() != 1) {
                refuse(ctx, request);
                return;
            }
            unanswered.add(version);
        }
        ctx.fireChannelRead(msg);
    }

    private void refuse(ChannelHandlerContext ctx, HttpRequest request) {
        refused = true;
        ReferenceCountUtil.release(request);
        Responses.errorAndClose(ctx, ctx.alloc(), TriageError.HTTP_VERSION_NOT_SUPPORTED,
                request.protocolVersion().text() + " is not supported; Triage speaks HTTP/1.1");
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response && !isInterim(response) && !unanswered.isEmpty()) {
            if (unanswered.poll().equals(HttpVersion.HTTP_1_0)) {
                answerInHttp10(response);
            } else {
                // A relayed answer carries the backend's version: an HTTP/1.0 backend's, re-framed as chunked
                // for this client, would reach it as HTTP/1.0 with chunked encoding, which it must refuse.
                response.setProtocolVersion(HttpVersion.HTTP_1_1);
            }
        }
        ctx.write(msg, promise);
    }

    private static boolean isInterim(HttpResponse response) {
        return response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    }

    private static void answerInHttp10(HttpResponse response) {
        response.setProtocolVersion(HttpVersion.HTTP_1_0);
        if (HttpUtil.isTransferEncodingChunked(response)) {
            response.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
            HttpUtil.setKeepAlive(response, false);
        }
    }
}
