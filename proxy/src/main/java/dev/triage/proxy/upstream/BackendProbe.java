package dev.triage.proxy.upstream;

import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.config.BackendConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a backend, in the background, whether it serves: a {@code GET} of its health path every few
 * seconds, a 2xx meaning up. Any other answer is down: a 404 says the server is there but not the API
 * Triage forwards to (a wrong {@code --backend} path, say), a 503 that it is still loading a model.
 * Readiness reads the last result instead of asking per request.
 */
public final class BackendProbe implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BackendProbe.class);

    private final URI target;
    private final HttpClient client;
    private final ScheduledExecutorService timer;
    private final Duration timeout;
    private final Results results;
    private volatile boolean up;
    private boolean probed;

    private BackendProbe(URI target, Duration interval, Duration timeout, Results results) {
        this.target = target;
        this.timeout = timeout;
        this.results = results;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
        this.timer = Executors.newSingleThreadScheduledExecutor(new DaemonThreadFactory("triage-probe"));
        timer.scheduleWithFixedDelay(this::probe, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Hears every probe's answer, on the probe's own thread. */
    @FunctionalInterface
    public interface Results {
        /**
         * @param up true for a 2xx
         * @param sentNanos when the probe was sent ({@link System#nanoTime()}): its answer says how the
         *     backend was then, which a failure seen since outdates
         */
        void probed(boolean up, long sentNanos);
    }

    /** Starts probing {@code backend}'s {@code healthPath} every {@code interval}, telling {@code results} every answer. */
    public static BackendProbe start(BackendConfig backend, String healthPath, Duration interval, Results results) {
        URI target = URI.create("http://" + backend.authority() + backend.pathPrefix() + healthPath);
        return new BackendProbe(target, interval, interval.compareTo(Duration.ofSeconds(2)) < 0 ? interval : Duration.ofSeconds(2),
                results);
    }

    /** True when the last probe got a 2xx. */
    public boolean up() {
        return up;
    }

    private void probe() {
        boolean nowUp;
        long sentNanos = System.nanoTime();
        try {
            HttpResponse<Void> response = client.send(HttpRequest.newBuilder(target).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.discarding());
            nowUp = response.statusCode() / 100 == 2;
            if (!nowUp && (!probed || up)) {
                log.warn("backend {} answered {}", target, response.statusCode());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            nowUp = false;
        }
        if (!probed || nowUp != up) {
            log.info("backend {} is {}", target, nowUp ? "up" : "down");
        }
        probed = true;
        up = nowUp;
        results.probed(nowUp, sentNanos);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
