package dev.triage.proxy.server;

import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.sizing.ModelReloader;
import dev.triage.proxy.metrics.TriageMetrics;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.QueueSnapshot;
import dev.triage.proxy.scheduler.ewsjf.EwsjfStatus;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The routes Triage answers itself: health, readiness, Prometheus metrics, and the admin API's views
 * of the queues and the configuration.
 */
public final class LocalRoutes {

    private LocalRoutes() {}

    /** {@code /healthz}: the process is alive and serving. */
    public static LocalRoute healthz() {
        return request -> CompletableFuture.completedFuture(
                Responses.json(ByteBufAllocator.DEFAULT, HttpResponseStatus.OK, Map.of("status", "ok")));
    }

    /**
     * {@code /readyz}: the process can do its job, as {@code ready} says; when it can, the body adds
     * {@code detail} (what sizes requests, which need not wait for an expensive estimator's model).
     */
    public static LocalRoute readyz(BooleanSupplier ready, Supplier<Map<String, String>> detail) {
        return request -> {
            if (ready.getAsBoolean()) {
                Map<String, String> body = new LinkedHashMap<>(Map.of("status", "ready"));
                body.putAll(detail.get());
                return CompletableFuture.completedFuture(Responses.json(ByteBufAllocator.DEFAULT, HttpResponseStatus.OK, body));
            }
            return CompletableFuture.completedFuture(Responses.error(ByteBufAllocator.DEFAULT, TriageError.NOT_READY,
                    "not ready: stopping, or the backend does not answer", null));
        };
    }

    /** {@code /metrics}: Prometheus text, or OpenMetrics when the scraper asks for it. */
    public static LocalRoute metrics(TriageMetrics metrics) {
        return request -> {
            TriageMetrics.Scrape scrape = metrics.scrape(request.headers().get(HttpHeaderNames.ACCEPT));
            return CompletableFuture.completedFuture(Responses.text(ByteBufAllocator.DEFAULT, HttpResponseStatus.OK,
                    scrape.body(), scrape.contentType()));
        };
    }

    /**
     * {@code /triage/queue}: per backend, its slots and its waiting requests in the order they will be
     * sent (id, route kind, estimate, wait so far, priority; never the prompt).
     */
    public static LocalRoute queue(List<BackendQueue> queues) {
        return request -> {
            List<CompletableFuture<QueueSnapshot>> snapshots = new ArrayList<>();
            for (BackendQueue queue : queues) {
                snapshots.add(queue.snapshot());
            }
            return CompletableFuture.allOf(snapshots.toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<QueueSnapshot> backends = new ArrayList<>();
                snapshots.forEach(s -> backends.add(s.join()));
                return json(Map.of("backends", backends));
            });
        };
    }

    /**
     * {@code /triage/ewsjf}: per backend whose policy is ewsjf, what sizes its jobs, its learnt queues
     * (size range, mean, share, bubble or not, jobs waiting), the parameters Θ in force, and the trials
     * the meta-optimizer has scored with their rewards.
     */
    public static LocalRoute ewsjf(List<BackendQueue> queues) {
        return request -> {
            Map<String, CompletableFuture<Optional<EwsjfStatus>>> statuses = new LinkedHashMap<>();
            for (BackendQueue queue : queues) {
                statuses.put(queue.name(), queue.ewsjfStatus());
            }
            return CompletableFuture.allOf(statuses.values().toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<Map<String, Object>> backends = new ArrayList<>();
                statuses.forEach((name, status) -> status.join()
                        .ifPresent(ewsjf -> backends.add(Map.of("backend", name, "ewsjf", ewsjf))));
                return json(Map.of("backends", backends));
            });
        };
    }

    /**
     * {@code POST /triage/reload}: loads the estimator's model file again and swaps it in if it is
     * good; a bad file keeps the serving model and the answer (422) says why. 409 when the estimator
     * has no model.
     */
    public static LocalRoute reload(ModelReloader reloader) {
        return request -> {
            if (reloader == null) {
                return CompletableFuture.completedFuture(Responses.error(ByteBufAllocator.DEFAULT, TriageError.NO_MODEL,
                        "the configured estimator has no model to reload", null));
            }
            return reloader.reload().thenApply(result -> result.reloaded()
                    ? json(Map.of("reloaded", true, "model", result.model()))
                    : Responses.error(ByteBufAllocator.DEFAULT, TriageError.MODEL_INVALID,
                            "the model was not replaced: " + result.message(), null));
        };
    }

    /** {@code /triage/config}: the effective configuration, secrets redacted. */
    public static LocalRoute config(Map<String, String> effective) {
        Map<String, String> shown = new LinkedHashMap<>(effective);
        return request -> CompletableFuture.completedFuture(json(shown));
    }

    private static FullHttpResponse json(Object value) {
        return Responses.json(ByteBufAllocator.DEFAULT, HttpResponseStatus.OK, value);
    }
}
