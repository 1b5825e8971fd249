package dev.triage.proxy.upstream;

import dev.triage.proxy.config.BackendConfig;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A small request of Triage's own to a backend, beside the client's, whose whole answer is read into
 * memory: through the backend's connection pool, on the event loop of {@code beside}, with the
 * upstream timeout. The answer completes the future when its status is 200 and it fits in
 * {@value #MAX_BYTES} bytes; any other outcome completes it exceptionally.
 *
 * <pre>{@code
 * BackendFetch.start(pool, backend, clientChannel, request, timeout).thenAccept(bytes -> ...);
 * }</pre>
 */
public final class BackendFetch implements UpstreamCall.Listener {

    static final int MAX_BYTES = 1 << 20;

    private final Channel beside;
    private final CompletableFuture<byte[]> answer = new CompletableFuture<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int status;
    private boolean tooLarge;

    private BackendFetch(Channel beside) {
        this.beside = beside;
    }

    /** Sends {@code request} (taking its reference); the future completes on {@code beside}'s event loop. */
    public static CompletableFuture<byte[]> start(UpstreamPool pool, BackendConfig backend, Channel beside, FullHttpRequest request,
            Duration timeout) {
        BackendFetch fetch = new BackendFetch(beside);
        UpstreamCall.start(pool, backend, beside, request, timeout, fetch::keep, fetch);
        return fetch.answer;
    }

    /** Keeps a message of the answer instead of writing it anywhere. */
    private ChannelFuture keep(Object message) {
        try {
            if (message instanceof HttpResponse head) {
                status = head.status().code();
            }
            if (message instanceof HttpContent content) {
                tooLarge |= body.size() + content.content().readableBytes() > MAX_BYTES;
                if (!tooLarge) {
                    body.writeBytes(ByteBufUtil.getBytes(content.content()));
                }
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
        return beside.newSucceededFuture();
    }

    @Override
    public void finished(UpstreamCall.Ending ending) {
        if (ending != UpstreamCall.Ending.OK) {
            answer.completeExceptionally(new IllegalStateException("backend call ended " + ending));
        }
    }

    @Override
    public void relayed() {
        if (tooLarge) {
            answer.completeExceptionally(new IllegalStateException("backend answered more than " + MAX_BYTES + " bytes"));
        } else if (status == 200) {
            answer.complete(body.toByteArray());
        } else {
            answer.completeExceptionally(new IllegalStateException("backend answered " + status));
        }
    }
}
