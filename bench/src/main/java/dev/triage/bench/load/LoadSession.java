package dev.triage.bench.load;

import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.proxy.Triage;
import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.config.TriageConfig;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Runs load against one variant: starts Triage in this process in front of the replay backend
 * (nothing for {@code direct}), sends the requests, stops Triage. Reports what the requests saw and
 * how often the starvation timeout fired. Chat and transcriptions share the backend and so one queue
 * (Triage is given no {@code --audio-backend}); an oracle variant replaces the chat estimator only.
 */
final class LoadSession {

    /** What one run produced. */
    record Outcome(List<LoadResult> results, long starvationPromotions) {}

    private LoadSession() {}

    /**
     * @param answers the workload's recorded lengths, for oracle variants
     * @param triageFlags flags added to every Triage started (an estimator, a service-time model)
     * @param api the API chat requests use
     */
    static Outcome run(ReplayBackend backend, AnswerBook answers, LoadVariant variant, List<LoadRequest> requests,
            List<String> triageFlags, ChatApi api) throws IOException, InterruptedException {
        if (!variant.throughTriage()) {
            return new Outcome(new LoadGenerator(api).run(URI.create("http://127.0.0.1:" + backend.port()), requests), 0);
        }
        try (Triage triage = startTriage(backend, answers, variant, triageFlags)) {
            List<LoadResult> results = new LoadGenerator(api).run(URI.create("http://127.0.0.1:" + triage.address().getPort()),
                    requests);
            return new Outcome(results, triage.queues().get(0).starvationPromotions());
        }
    }

    /** Triage in this process in front of {@code backend}, as {@code variant} (one that goes through Triage) runs it. */
    static Triage startTriage(ReplayBackend backend, AnswerBook answers, LoadVariant variant, List<String> triageFlags)
            throws InterruptedException {
        String backendUrl = "http://127.0.0.1:" + backend.port();
        TriageConfig config = ConfigLoader.load(variant.triageFlags(backendUrl, triageFlags).toArray(String[]::new), Map.of());
        return variant.oracle() ? Triage.start(config, new WorkloadOracle(answers)) : Triage.start(config);
    }
}
