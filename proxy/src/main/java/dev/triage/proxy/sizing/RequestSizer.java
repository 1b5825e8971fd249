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
}
