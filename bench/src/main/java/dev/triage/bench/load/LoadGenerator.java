package dev.triage.bench.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.bench.workload.AudioFile;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Sends a workload's requests over real HTTP at set times and records, per request, the time to its
 * first token and to its end. A prompt goes as a chat request that streams ({@code "stream": true}),
 * by OpenAI's API or Ollama's ({@link ChatApi}), so that the first token is seen when it arrives; an audio file goes as a transcription
 * ({@link TranscriptionForm}), which is not streamed, so its first token comes with the answer's
 * first line. Each request has its own connection, as concurrent clients do.
 *
 * <pre>{@code
 * List<LoadResult> results = new LoadGenerator(ChatApi.OPENAI, false).run(URI.create("http://127.0.0.1:8080"), requests);
 * }</pre>
 */
public final class LoadGenerator {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "replay";

    private final ChatApi api;
    private final boolean limitAtAnswer;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    /**
     * @param limitAtAnswer true to set each chat request's output limit ({@code max_tokens}, Ollama's
     *     {@code options.num_predict}) to its recorded answer's length: how a real server of random
     *     weights, which generates exactly its limit, answers at the recorded length. Triage then reads
     *     the true length from that limit, so a policy that orders by the estimate (sjf) runs on true
     *     lengths.
     */
    public LoadGenerator(ChatApi api, boolean limitAtAnswer) {
        this.api = api;
        this.limitAtAnswer = limitAtAnswer;
    }

    /**
     * Sends every request to {@code base}'s chat route or {@code /v1/audio/transcriptions}
     * and waits for all of them. Audio files are read before the first request goes out.
     */
    public List<LoadResult> run(URI base, List<LoadRequest> requests) throws IOException {
        List<HttpRequest> prepared = prepare(base, requests);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new DaemonThreadFactory("load-timer"));
        try {
            List<CompletableFuture<LoadResult>> pending = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++) {
                LoadRequest request = requests.get(i);
                HttpRequest http = prepared.get(i);
                CompletableFuture<LoadResult> result = new CompletableFuture<>();
                pending.add(result);
                long delay = (long) (request.sendAtSeconds() * 1e9);
                timer.schedule(() -> send(http, request, result), delay, TimeUnit.NANOSECONDS);
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

    /** The HTTP request for each load request; each distinct audio file is read and framed once. */
    private List<HttpRequest> prepare(URI base, List<LoadRequest> requests) throws IOException {
        Map<AudioFile, byte[]> forms = new HashMap<>();
        List<HttpRequest> prepared = new ArrayList<>(requests.size());
        for (LoadRequest request : requests) {
            Optional<AudioFile> audio = request.entry().audio();
            HttpRequest.Builder http;
            if (audio.isPresent()) {
                byte[] form = forms.get(audio.get());
                if (form == null) {
                    form = TranscriptionForm.body(MODEL, audio.get().path().getFileName().toString(),
                            Files.readAllBytes(audio.get().path()));
                    forms.put(audio.get(), form);
                }
                http = transcription(base, form);
            } else {
                http = chat(base, request);
            }
            prepared.add(http.timeout(Duration.ofMinutes(30)).build());
        }
        return prepared;
    }

    private static HttpRequest.Builder transcription(URI base, byte[] form) {
        return HttpRequest.newBuilder(base.resolve("/v1/audio/transcriptions"))
                .header("content-type", TranscriptionForm.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(form));
    }

    private HttpRequest.Builder chat(URI base, LoadRequest request) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", MODEL);
        body.put("stream", true);
        if (limitAtAnswer) {
            int limit = Math.max(1, request.entry().answerTokens());
            if (api == ChatApi.OLLAMA) {
                body.putObject("options").put("num_predict", limit);
            } else {
                body.put("max_tokens", limit);
            }
        }
        body.putArray("messages").addObject().put("role", "user").put("content", request.entry().prompt());
        return HttpRequest.newBuilder(base.resolve(api.path()))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    }

    private void send(HttpRequest http, LoadRequest request, CompletableFuture<LoadResult> result) {
        long sent = System.nanoTime();
        // A chat answer's first token is its first event; a transcription's is its first line.
        FirstEvent firstEvent = new FirstEvent(request.entry().audio().isPresent() ? line -> true : api::carriesToken);
        client.sendAsync(http, HttpResponse.BodyHandlers.fromLineSubscriber(firstEvent))
                .whenComplete((response, error) -> {
                    long end = System.nanoTime();
                    double firstToken = firstEvent.at == 0 ? Double.NaN : (firstEvent.at - sent) / 1e9;
                    result.complete(new LoadResult(request.entry().jobClass(), firstToken, (end - sent) / 1e9,
                            response == null ? 0 : response.statusCode()));
                });
    }

    /** Notes when the first line that {@code marksFirstToken} accepts arrives, and reads the rest. */
    private static final class FirstEvent implements Flow.Subscriber<String> {
        private final Predicate<String> marksFirstToken;
        private volatile long at;

        FirstEvent(Predicate<String> marksFirstToken) {
            this.marksFirstToken = marksFirstToken;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (at == 0 && marksFirstToken.test(line)) {
                at = System.nanoTime();
            }
        }

        @Override
        public void onError(Throwable throwable) {}

        @Override
        public void onComplete() {}
    }
}
