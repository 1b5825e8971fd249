package dev.triage.proxy.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.api.Json;
import dev.triage.proxy.api.OllamaApi;
import dev.triage.proxy.api.TriageError;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Builds the responses Triage answers with itself: OpenAI-style errors,
 * {@code {"error":{"message","type","param","code"}}} (Ollama's {@code {"error":"message"}} on its own
 * API; either with {@code x-should-retry: false} where a retry cannot help), and small JSON bodies for
 * local routes.
 */
public final class Responses {

    /** The header OpenAI's SDKs read before their own retry rules: {@code false} stops their retries. */
    static final AsciiString SHOULD_RETRY = AsciiString.cached("x-should-retry");
    private static final AsciiString FALSE = AsciiString.cached("false");

    private Responses() {}

    /** An OpenAI-style error response. */
    public static FullHttpResponse error(ByteBufAllocator alloc, TriageError error, String message, String param) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        ObjectNode inner = body.putObject("error");
        inner.put("message", message);
        inner.put("type", error.type());
        if (param == null) {
            inner.putNull("param");
        } else {
            inner.put("param", param);
        }
        inner.put("code", error.code());
        return errorResponse(alloc, error, body);
    }

    /**
     * An error response to a request for {@code path}, in the shape its clients read: on Ollama's own
     * API ({@code /api/...}) Ollama's {@code {"error":"message"}} (its clients show {@code error} as the
     * message, and an object there as "[object Object]"), with Triage's {@code code} beside it;
     * elsewhere OpenAI's.
     */
    public static FullHttpResponse error(ByteBufAllocator alloc, String path, TriageError error, String message, String param) {
        if (!OllamaApi.owns(path)) {
            return error(alloc, error, message, param);
        }
        return errorResponse(alloc, error, Json.MAPPER.createObjectNode().put("error", message).put("code", error.code()));
    }

    private static FullHttpResponse errorResponse(ByteBufAllocator alloc, TriageError error, ObjectNode body) {
        FullHttpResponse response = json(alloc, error.status(), body);
        if (!error.retryable()) {
            response.headers().set(SHOULD_RETRY, FALSE);
        }
        return response;
    }

    /**
     * Answers with an error and closes the connection once it is written: for a connection that cannot
     * go on (a malformed or late request head, an HTTP version Triage does not speak, a connection over
     * the limit).
     *
     * @param out the context or channel to write through: a handler before the codec writes through the channel
     */
    public static void errorAndClose(ChannelOutboundInvoker out, ByteBufAllocator alloc, TriageError error, String message) {
        FullHttpResponse response = error(alloc, error, message, null);
        HttpUtil.setKeepAlive(response, false);
        out.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    /** A response with {@code value} serialised as its JSON body. */
    public static FullHttpResponse json(ByteBufAllocator alloc, HttpResponseStatus status, Object value) {
        byte[] bytes;
        try {
            bytes = Json.MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + value.getClass(), e);
        }
        return bytes(alloc, status, bytes, "application/json");
    }

    /** A response with a text body. */
    public static FullHttpResponse text(ByteBufAllocator alloc, HttpResponseStatus status, String text, String contentType) {
        return bytes(alloc, status, text.getBytes(StandardCharsets.UTF_8), contentType);
    }

    /**
     * Answers {@code Expect: 100-continue} with an interim 100 Continue, and drops the header so the
     * request goes upstream without it: the client is told to send its body once, by Triage.
     */
    public static void continueIfExpected(ChannelHandlerContext ctx, HttpRequest head) {
        if (HttpUtil.is100ContinueExpected(head)) {
            head.headers().remove(HttpHeaderNames.EXPECT);
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
        }
    }

    private static FullHttpResponse bytes(ByteBufAllocator alloc, HttpResponseStatus status, byte[] bytes, String contentType) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                alloc.buffer(bytes.length).writeBytes(bytes));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        if (status.equals(HttpResponseStatus.OK)) {
            response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        }
        return response;
    }
}
