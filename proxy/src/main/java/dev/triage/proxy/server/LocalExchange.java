package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.Collectors;

/** A request Triage answers itself through a {@link LocalRoute}; its (small) body is gathered first. */
final class LocalExchange extends BodyGatheringExchange {

    /** Local routes take small bodies at most (a reload command, say). */
    static final long MAX_BODY = 64 * 1024;

    private final LocalRoute route;
    private boolean over;

    LocalExchange(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head, LocalRoute route) {
        super(receiver, ctx, head, MAX_BODY);
        this.route = route;
    }

    /** An exchange that answers 405, naming the methods the path does take. */
    static LocalExchange methodNotAllowed(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head,
            Set<HttpMethod> allowed) {
        String allow = allowed.stream().map(HttpMethod::name).sorted().collect(Collectors.joining(", "));
        return new LocalExchange(receiver, ctx, head, request -> {
            FullHttpResponse response = Responses.error(ctx.alloc(), TriageError.METHOD_NOT_ALLOWED,
                    request.method() + " is not allowed on " + request.uri() + "; use " + allow, null);
            response.headers().set(HttpHeaderNames.ALLOW, allow);
            return CompletableFuture.completedFuture(response);
        });
    }

    /** An exchange that answers 404 for a path of Triage's own that does not exist. */
    static LocalExchange notFound(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head) {
        return new LocalExchange(receiver, ctx, head, request -> CompletableFuture.completedFuture(Responses.error(ctx.alloc(),
                TriageError.NOT_FOUND, "Triage has no route " + RouteTable.pathOf(request.uri()), null)));
    }

    /** An exchange that answers 400 for a target that is not a plain spelling of the route it names. */
    static LocalExchange badTarget(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head,
            String message) {
        return new LocalExchange(receiver, ctx, head, request -> CompletableFuture.completedFuture(
                Responses.error(ctx.alloc(), TriageError.INVALID_REQUEST, message, null)));
    }

    /** An exchange that refuses an admin request its caller may not make. */
    static LocalExchange denied(ClientRequestReceiver receiver, ChannelHandlerContext ctx, HttpRequest head,
            TriageError error) {
        return new LocalExchange(receiver, ctx, head, request -> {
            String message = switch (error) {
                case FORBIDDEN -> "the admin API answers local clients only; set --admin-token to allow others";
                case ADMIN_CROSS_ORIGIN -> "the admin API answers requests sent to this host by name or loopback"
                        + " address only, and none from another origin";
                default -> "the admin API needs Authorization: Bearer <admin token>";
            };
            FullHttpResponse response = Responses.error(ctx.alloc(), error, message, null);
            if (error == TriageError.UNAUTHORIZED) {
                response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
            }
            return CompletableFuture.completedFuture(response);
        });
    }

    @Override
    public void onClientGone() {
        over = true;
        body.release();
    }

    @Override
    void bodyComplete() {
        FullHttpRequest request = new DefaultFullHttpRequest(head.protocolVersion(), head.method(), head.uri(),
                body.bytes().retain(), head.headers(), EmptyHttpHeaders.INSTANCE);
        body.release();
        CompletableFuture<FullHttpResponse> answer;
        try {
            answer = route.respond(request);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((response, error) -> {
            try {
                ctx.executor().execute(() -> answered(request, response, error));
            } catch (RejectedExecutionException e) {
                // The event loop has stopped (a slow route finishing during shutdown): no one to answer.
                request.release();
                if (response != null) {
                    response.release();
                }
            }
        });
    }

    private void answered(FullHttpRequest request, FullHttpResponse response, Throwable error) {
        request.release();
        if (over) {
            if (response != null) {
                response.release();
            }
            return;
        }
        over = true;
        receiver.respond(this, response != null ? response
                : Responses.error(ctx.alloc(), TriageError.INTERNAL, "the local route failed: " + error, null));
    }

    @Override
    void bodyTooLarge() {
        over = true;
        receiver.respond(this, closingIfBodyWithheld(Responses.error(ctx.alloc(), TriageError.BODY_TOO_LARGE,
                "request body exceeds " + MAX_BODY + " bytes", null)));
    }
}
