package dev.triage.bench.replay;

import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Hears every request the replay backend receives, as it arrived, before it is answered: how a
 * fault-injection run checks what a proxy forwarded. Called on the backend's event loop; it must
 * be quick and must not keep or release the request.
 */
@FunctionalInterface
public interface RequestListener {

    /** A listener that hears nothing. */
    RequestListener NONE = request -> { };

    void received(FullHttpRequest request);
}
