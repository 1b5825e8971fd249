package dev.triage.bench.load;

import dev.triage.bench.relay.AnswerLengthRelay;
import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.proxy.Triage;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;
import dev.triage.proxy.scheduler.BackendQueue;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs load against one variant: starts Triage in this process in front of the backend (nothing for
 * {@code direct}), sends the requests, stops Triage. Reports what the requests saw and how often the
 * starvation timeout fired. Chat and transcriptions share the backend and so one queue (Triage is
 * given no {@code --audio-backend}).
 *
 * <p>Two kinds of backend: the replay backend, which knows every prompt's recorded length, where an
 * oracle variant replaces Triage's chat estimator by those lengths; and a real server behind an
 * {@link AnswerLengthRelay}, where each request carries its length in the relay's header and an
 * oracle variant sends it as the request's {@code priority}.
 */
public final class LoadSession {

    /**
     * What one run produced.
     *
     * @param estimatorFallbacks chat requests Triage sized with its fallback estimator, because the
     *     configured one could not in time (a burst can saturate an expensive one)
     * @param slotsAtEnd how many requests Triage let the backend run at once when the run ended (the
     *     limit {@code --max-concurrency auto} had found), 0 without Triage
     * @param preemptions how often Triage paused and resumed a running request, and what the resumes
     *     made the backend read again
     */
    record Outcome(List<LoadResult> results, long starvationPromotions, long estimatorFallbacks, int slotsAtEnd,
            Preemptions preemptions) {}

    /**
     * A run's pauses and resumes, and the tokens of text so far that its resumes sent the backend to
     * read again (each resume's prefill beyond the prompt).
     */
    record Preemptions(long pauses, long resumes, long reprefilledTokens) {

        static final Preemptions NONE = new Preemptions(0, 0, 0);
    }

    /** Runs one variant on a set of requests, against a backend the caller started. */
    @FunctionalInterface
    interface Runner {
        Outcome run(LoadVariant variant, List<LoadRequest> requests) throws IOException, InterruptedException;
    }

    static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    static final Duration READY_POLL = Duration.ofMillis(50);

    private LoadSession() {}

    /**
     * @param answers the workload's recorded lengths, for oracle variants
     * @param triageFlags flags added to every Triage started (an estimator, a service-time model)
     * @param api the API chat requests use
     */
    static Outcome run(ReplayBackend backend, AnswerBook answers, LoadVariant variant, List<LoadRequest> requests,
            List<String> triageFlags, ChatApi api) throws IOException, InterruptedException {
        LoadGenerator generator = new LoadGenerator(api);
        if (!variant.throughTriage()) {
            return new Outcome(generator.run(URI.create("http://127.0.0.1:" + backend.port()), requests), 0, 0, 0, Preemptions.NONE);
        }
        try (Triage triage = startTriage(backend, answers, variant, triageFlags)) {
            return measure(triage, generator, requests);
        }
    }

    /**
     * @param triageFlags flags added to every Triage started
     * @param preemption how the server continues a paused stream ({@code --preemption}), for a variant that pauses
     */
    static Outcome run(AnswerLengthRelay relay, LoadVariant variant, List<LoadRequest> requests, List<String> triageFlags,
            Optional<String> preemption) throws IOException, InterruptedException {
        LoadGenerator generator = new LoadGenerator(ChatApi.OPENAI, true, variant.oracle());
        if (!variant.throughTriage()) {
            return new Outcome(generator.run(URI.create(relay.url()), requests), 0, 0, 0, Preemptions.NONE);
        }
        List<String> flags = variant.triageFlags(relay.url(), variant.withPreemption(triageFlags, preemption));
        TriageConfig config = ConfigLoader.load(flags.toArray(String[]::new), Map.of());
        try (Triage triage = Triage.start(config)) {
            return measure(triage, generator, requests);
        }
    }

    /** Triage in this process in front of {@code backend}, as {@code variant} (one that goes through Triage) runs it. */
    static Triage startTriage(ReplayBackend backend, AnswerBook answers, LoadVariant variant, List<String> triageFlags)
            throws InterruptedException {
        String backendUrl = "http://127.0.0.1:" + backend.port();
        TriageConfig config = ConfigLoader.load(variant.triageFlags(backendUrl, triageFlags).toArray(String[]::new), Map.of());
        return variant.oracle() ? Triage.start(config, new WorkloadOracle(answers)) : Triage.start(config);
    }

    private static Outcome measure(Triage triage, LoadGenerator generator, List<LoadRequest> requests)
            throws IOException, InterruptedException {
        URI base = URI.create("http://127.0.0.1:" + triage.address().getPort());
        awaitReady(base);
        List<LoadResult> results = generator.run(base, requests);
        BackendQueue queue = triage.queues().get(0);
        return new Outcome(results, queue.starvationPromotions(), triage.estimatorFallbacks(), queue.slots(),
                new Preemptions(queue.pauses(), queue.resumes(), queue.reprefilledTokens()));
    }

    /**
     * Waits until Triage is ready and its estimator has loaded: one that loads in the background
     * would otherwise leave the run's first requests to its fallback.
     */
    public static void awaitReady(URI base) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest readyz = HttpRequest.newBuilder(base.resolve("/readyz")).timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            HttpResponse<String> ready = client.send(readyz, HttpResponse.BodyHandlers.ofString());
            if (ready.statusCode() == 200 && ready.body().contains("\"estimator_state\":\"ready\"")) {
                return;
            }
            if (ready.body().contains("\"estimator_state\":\"unavailable\"") || System.nanoTime() > deadline) {
                throw new IOException("Triage is not ready to size requests with its estimator: " + ready.body());
            }
            Thread.sleep(READY_POLL.toMillis());
        }
    }
}
