package dev.triage.bench.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.bench.relay.AnswerLengthRelay;
import dev.triage.bench.workload.AudioFile;
import dev.triage.bench.workload.WorkloadEntry;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Sends a workload's requests over real HTTP at set times and records, per request, the time to its
 * first token and to its end. A prompt goes as a chat request that streams ({@code "stream": true}),
 * by OpenAI's API or Ollama's ({@link ChatApi}), so that the first token is seen when it arrives (its
 * first event with text); an audio file goes as a transcription ({@link TranscriptionForm}), which is
 * not streamed, so its first token comes with the answer's first line. The requests share one HTTP
 * client, which opens a connection for each request in flight and keeps idle ones for later requests.
 *
 * <p>In front of an {@link AnswerLengthRelay} (a real server that generates what it is asked for),
 * each chat request also carries its recorded answer length in the relay's header and an id of its
 * own, where Triage cannot read the length; an oracle run may send that length as the request's
 * {@code priority}, which Triage ranks above its policy.
 *
 * <pre>{@code
 * List<LoadResult> results = new LoadGenerator(ChatApi.OPENAI).run(URI.create("http://127.0.0.1:8080"), requests);
 * }</pre>
 */
public final class LoadGenerator {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "replay";

    private final ChatApi api;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final boolean answerLengthHeader;
    private final boolean lengthAsPriority;

    /** Sends each chat request with its prompt alone, for the replay backend, which knows the lengths. */
    public LoadGenerator(ChatApi api) {
        this(api, false, false);
    }

    /**
     * @param answerLengthHeader each chat request carries its recorded answer length in
     *     {@link AnswerLengthRelay#ANSWER_TOKENS} and an id of its own in {@link AnswerLengthRelay#REQUEST_ID}
     * @param lengthAsPriority each chat request's {@code priority} is its recorded answer length
     */
    public LoadGenerator(ChatApi api, boolean answerLengthHeader, boolean lengthAsPriority) {
        this.api = api;
        this.answerLengthHeader = answerLengthHeader;
        this.lengthAsPriority = lengthAsPriority;
    }

    /**
     * Sends every request to {@code base}'s chat route or {@code /v1/audio/transcriptions}
     * and waits for all of them. Audio files are read before the first request goes out.
     */
    public List<LoadResult> run(URI base, List<LoadRequest> requests) throws IOException {
        List<HttpRequest> prepared = prepare(base, requests);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new DaemonThreadFactory("load-timer"));
        long start = System.nanoTime();
        try {
            List<CompletableFuture<LoadResult>> pending = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++) {
                LoadRequest request = requests.get(i);
                HttpRequest http = prepared.get(i);
                CompletableFuture<LoadResult> result = new CompletableFuture<>();
                pending.add(result);
                long delay = (long) (request.sendAtSeconds() * 1e9);
                timer.schedule(() -> send(http, request, start, result), delay, TimeUnit.NANOSECONDS);
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
        String runId = Long.toHexString(ThreadLocalRandom.current().nextLong());
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
                http = chat(base, request, runId + "-" + prepared.size());
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

    private HttpRequest.Builder chat(URI base, LoadRequest request, String requestId) {
        HttpRequest.Builder http = HttpRequest.newBuilder(base.resolve(api.path()))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(chatBody(request.entry(), lengthAsPriority).toString()));
        request.apiKey().ifPresent(key -> http.header("authorization", "Bearer " + key));
        if (answerLengthHeader) {
            http.header(AnswerLengthRelay.ANSWER_TOKENS, Integer.toString(request.entry().answerTokens()))
                    .header(AnswerLengthRelay.REQUEST_ID, requestId);
        }
        return http;
    }

    /** A streamed chat with the entry's prompt; never an output limit, which Triage would read. */
    static ObjectNode chatBody(WorkloadEntry entry, boolean lengthAsPriority) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", MODEL);
        body.put("stream", true);
        body.putArray("messages").addObject().put("role", "user").put("content", entry.prompt());
        if (lengthAsPriority) {
            body.put("priority", entry.answerTokens());
        }
        return body;
    }

    private void send(HttpRequest http, LoadRequest request, long runStart, CompletableFuture<LoadResult> result) {
        long sent = System.nanoTime();
        // A chat answer's first token is its first event; a transcription's is its first line.
        FirstEvent firstEvent = new FirstEvent(request.entry().audio().isPresent() ? line -> true : api::carriesToken);
        client.sendAsync(http, HttpResponse.BodyHandlers.fromLineSubscriber(firstEvent))
                .whenComplete((response, error) -> {
                    long end = System.nanoTime();
                    double firstToken = firstEvent.at == 0 ? Double.NaN : (firstEvent.at - sent) / 1e9;
                    result.complete(new LoadResult(request.entry().jobClass(), (sent - runStart) / 1e9, firstToken, (end - sent) / 1e9,
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
