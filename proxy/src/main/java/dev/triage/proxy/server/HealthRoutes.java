package dev.triage.proxy.server;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * {@code /healthz}: the process is alive and serving. {@code /readyz}: it can do its job, as the
 * given check says.
 */
public final class HealthRoutes {

    private HealthRoutes() {}

    public static LocalRoute healthz() {
        return request -> CompletableFuture.completedFuture(
                Responses.json(ByteBufAllocator.DEFAULT, HttpResponseStatus.OK, Map.of("status", "ok")));
    }

    public static LocalRoute readyz(BooleanSupplier ready) {
        return request -> {
            if (ready.getAsBoolean()) {
                return CompletableFuture.completedFuture(
                        Responses.json(ByteBufAllocator.DEFAULT, HttpResponseStatus.OK, Map.of("status", "ready")));
            }
            return CompletableFuture.completedFuture(Responses.error(ByteBufAllocator.DEFAULT, TriageError.NOT_READY,
                    "not ready", null));
        };
    }
}
