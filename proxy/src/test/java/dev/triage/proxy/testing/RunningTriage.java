package dev.triage.proxy.testing;

import dev.triage.features.Prompt;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.Triage;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.QueueSnapshot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A Triage started in the test's JVM on a free loopback port, with an HTTP client pointed at it. */
public final class RunningTriage implements AutoCloseable {

    static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);

    private final Triage triage;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private RunningTriage(Triage triage) {
        this.triage = triage;
    }

    /** Starts Triage with these flags (see {@link #config}). */
    public static RunningTriage start(String... flags) throws InterruptedException {
        return new RunningTriage(Triage.start(config(flags)));
    }

    /** Starts Triage with these flags, its chat requests sized by {@code chatEstimator} instead of the configured one. */
    public static RunningTriage start(JobEstimator<Prompt> chatEstimator, String... flags) throws InterruptedException {
        return new RunningTriage(Triage.start(config(flags), chatEstimator));
    }

    /**
     * The flags on top of {@code --listen 127.0.0.1:0} and, unless a test chooses its estimator, {@code --estimator
     * classifier}: a fast estimator loads before Triage serves, so no estimate depends on when a
     * background load finishes.
     */
    private static TriageConfig config(String... flags) {
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0"));
        if (!List.of(flags).contains("--estimator")) {
            args.addAll(List.of("--estimator", "classifier"));
        }
        args.addAll(List.of(flags));
        return ConfigLoader.load(args.toArray(String[]::new), Map.of());
    }

    public Triage triage() {
        return triage;
    }

    public int port() {
        return triage.address().getPort();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    /** The chat backend's queue. */
    public BackendQueue chatQueue() {
        return triage.queues().get(0);
    }

    /** Waits until /readyz reports the estimator {@code state} ({@code loading}, {@code ready}, {@code unavailable}). */
    public void awaitEstimator(String state) {
        Await.until("/readyz reports the estimator " + state, Duration.ofMinutes(2), () -> {
            try {
                HttpResponse<String> ready = get("/readyz");
                return ready.statusCode() == 200 && ready.body().contains("\"estimator_state\":\"" + state + "\"");
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** {@link #awaitWaiting(BackendQueue, int)} on the chat backend's queue. */
    public void awaitWaiting(int count) {
        awaitWaiting(chatQueue(), count);
    }

    /**
     * Waits until {@code count} jobs wait in {@code queue} as its dispatch thread has them. A job is
     * counted as waiting ({@link BackendQueue#waitingCount}) just before it is handed to that thread,
     * so a test that sends requests one by one, in an order it checks, waits for this before the next.
     */
    public static void awaitWaiting(BackendQueue queue, int count) {
        awaitQueue(queue, count + " waiting in the queue", waiting -> waiting.size() == count);
    }

    /** Waits until the jobs waiting in {@code queue}, in dispatch order as its snapshot has them, meet {@code condition}. */
    public static void awaitQueue(BackendQueue queue, String what, Predicate<List<QueueSnapshot.Waiting>> condition) {
        Await.until(what, () -> {
            try {
                return condition.test(queue.snapshot().get(10, TimeUnit.SECONDS).waiting());
            } catch (Exception e) {
                return false;
            }
        });
    }

    public HttpResponse<String> post(String path, String body) throws Exception {
        return client.send(postRequest(path, body), HttpResponse.BodyHandlers.ofString());
    }

    public CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
        return client.sendAsync(postRequest(path, body), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Posts a body of any type (an audio form, say). */
    public CompletableFuture<HttpResponse<String>> postAsync(String path, String contentType, byte[] body) {
        return client.sendAsync(HttpRequest.newBuilder(uri(path)).timeout(REQUEST_TIMEOUT)
                .header("content-type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * {@code /metrics} once at least {@code ended} scheduled requests have been recorded. A request is
     * recorded just after its last byte went out, so its client can be a moment ahead of the record;
     * and a scrape reads one meter after another, so the scrape that first counts the last request
     * may have read its other meters just before they were written: the one returned comes after.
     */
    public String metricsAfter(int ended) throws Exception {
        Await.until(ended + " requests recorded in /metrics", () -> {
            try {
                return PrometheusText.sum(get("/metrics").body(), "triage_request_seconds_count", Map.of()) >= ended;
            } catch (Exception e) {
                return false;
            }
        });
        return get("/metrics").body();
    }

    public HttpClient client() {
        return client;
    }

    /** A POST that waits as long as a queue on a slow, busy machine may take: tests keep generous bounds. */
    public HttpRequest postRequest(String path, String body) {
        return HttpRequest.newBuilder(uri(path))
                .timeout(REQUEST_TIMEOUT)
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    @Override
    public void close() {
        triage.close();
    }
}
