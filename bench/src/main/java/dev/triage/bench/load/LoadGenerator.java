package dev.triage.bench.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Sends chat requests over real HTTP at set times and records, per request, the time to its first
 * streamed event and to its end. Requests stream ({@code "stream": true}) so that the first token is
 * seen when it arrives; each has its own connection, as concurrent clients do.
 *
 * <pre>{@code
 * List<LoadResult> results = new LoadGenerator().run(URI.create("http://127.0.0.1:8080"), requests);
 * }</pre>
 */
public final class LoadGenerator {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    /** Sends every request to {@code base}'s {@code /v1/chat/completions} and waits for all of them. */
    public List<LoadResult> run(URI base, List<LoadRequest> requests) {
        URI endpoint = base.resolve("/v1/chat/completions");
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "load-timer");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<CompletableFuture<LoadResult>> pending = new ArrayList<>();
            for (LoadRequest request : requests) {
                CompletableFuture<LoadResult> result = new CompletableFuture<>();
                pending.add(result);
                long delay = (long) (request.sendAtSeconds() * 1e9);
                timer.schedule(() -> send(endpoint, request, result), delay, TimeUnit.NANOSECONDS);
            }
            List<LoadResult> results = new ArrayList<>();
            for (CompletableFuture<LoadResult> result : pending) {
                results.add(result.join());
            }
            return results;
        } finally {
            timer.shutdownNow();
        }
    }

    private void send(URI endpoint, LoadRequest request, CompletableFuture<LoadResult> result) {
        long sent = System.nanoTime();
        FirstEvent firstEvent = new FirstEvent();
        client.sendAsync(HttpRequest.newBuilder(endpoint)
                        .timeout(Duration.ofMinutes(30))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body(request)))
                        .build(),
                HttpResponse.BodyHandlers.fromLineSubscriber(firstEvent))
                .whenComplete((response, error) -> {
                    long end = System.nanoTime();
                    double firstToken = firstEvent.at == 0 ? Double.NaN : (firstEvent.at - sent) / 1e9;
                    result.complete(new LoadResult(request.entry().jobClass(), firstToken, (end - sent) / 1e9,
                            response == null ? 0 : response.statusCode()));
                });
    }

    private static String body(LoadRequest request) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", "replay");
        body.put("stream", true);
        body.putArray("messages").addObject().put("role", "user").put("content", request.entry().prompt());
        return body.toString();
    }

    /** Notes when the first SSE event of a response arrives and reads the rest. */
    private static final class FirstEvent implements Flow.Subscriber<String> {
        private volatile long at;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (at == 0 && line.startsWith("data:")) {
                at = System.nanoTime();
            }
        }

        @Override
        public void onError(Throwable throwable) {}

        @Override
        public void onComplete() {}
    }
}
