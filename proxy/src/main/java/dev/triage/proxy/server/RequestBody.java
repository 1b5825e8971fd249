package dev.triage.proxy.server;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * A request body gathered in memory up to a limit, for the routes that must read a body before
 * acting on it. Chunks are added without copying. Past the limit the gathered bytes are dropped
 * at once and the remaining chunks only counted off, so an oversized upload never sits in memory.
 */
final class RequestBody {

    /** Where gathering stands after a chunk. */
    enum Progress {
        MORE,
        COMPLETE,
        TOO_LARGE,
        /** Chunks of a body already found too large, until its end. */
        DISCARDING,
        DISCARDED
    }

    private final long limit;
    private CompositeByteBuf bytes;
    private boolean tooLarge;

    private RequestBody(ByteBufAllocator alloc, long limit) {
        this.limit = limit;
        this.bytes = alloc.compositeBuffer(Integer.MAX_VALUE);
    }

    /**
     * Starts gathering the body of {@code head}. When its declared {@code Content-Length} already
     * exceeds the limit, the body is too large before a byte arrives.
     */
    static RequestBody start(ByteBufAllocator alloc, HttpRequest head, long limit) {
        RequestBody body = new RequestBody(alloc, limit);
        if (HttpUtil.getContentLength(head, -1L) > limit) {
            body.drop();
        }
        return body;
    }

    boolean tooLarge() {
        return tooLarge;
    }

    /** Adds a chunk, taking ownership of it. */
    Progress add(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (tooLarge) {
            content.release();
            return last ? Progress.DISCARDED : Progress.DISCARDING;
        }
        if ((long) bytes.readableBytes() + content.content().readableBytes() > limit) {
            content.release();
            drop();
            return Progress.TOO_LARGE;
        }
        bytes.addComponent(true, content.content());
        return last ? Progress.COMPLETE : Progress.MORE;
    }

    /** The gathered bytes; owned by this body until {@link #release()}. */
    CompositeByteBuf bytes() {
        return bytes;
    }

    void release() {
        if (bytes != null) {
            bytes.release();
            bytes = null;
        }
    }

    private void drop() {
        tooLarge = true;
        release();
    }
}
