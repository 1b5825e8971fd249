package dev.triage.proxy.server;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import java.util.concurrent.CompletableFuture;

/**
 * A route Triage answers itself ({@code /healthz}, {@code /readyz}, ...). The request is aggregated
 * (it is small) and owned by the caller, who releases it once the future completes.
 */
@FunctionalInterface
public interface LocalRoute {

    CompletableFuture<FullHttpResponse> respond(FullHttpRequest request);
}
