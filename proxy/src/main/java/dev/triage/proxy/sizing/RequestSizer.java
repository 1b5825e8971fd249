package dev.triage.proxy.sizing;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a scheduled request's head and complete body and sizes the job. Work that takes microseconds
 * may complete the future at once, on the event loop; work that takes milliseconds runs on a bounded
 * executor and completes it from there.
 */
public interface RequestSizer {

    /**
     * @param body the request body, owned by the caller: not to be modified (its bytes are forwarded
     *     afterwards) nor released. The caller releases it when the client leaves, even while sizing
     *     runs, so a sizer that reads it after returning takes a reference of its own first.
     * @return the job's size, or a future failed with {@link RequestRejectedException}
     */
    CompletableFuture<SizedJob> size(HttpRequest head, ByteBuf body);

    /**
     * For a request that may be sent before it is sized (a slot is free and nobody waits): reads and
     * checks it now, refusing what must never be forwarded with a {@link RequestRejectedException},
     * and leaves the estimate for later. Null when this sizer cannot check a request without sizing
     * it: the request then waits for {@link #size}.
     *
     * @param body as for {@link #size}; read before this method returns
     */
    default CheckedRequest check(HttpRequest head, ByteBuf body) {
        return null;
    }
}
