package dev.triage.bench.load;

import dev.triage.bench.replay.AnswerBook;
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
     * @param backendUrl the backend's base URL: the replay backend's, or a real server's
     * @param answers the workload's recorded lengths, for oracle variants
     * @param triageFlags flags added to every Triage started (an estimator, a service-time model)
     * @param generator sends the requests (by its chat API, with or without the answers' lengths as limits)
     */
    static Outcome run(String backendUrl, AnswerBook answers, LoadVariant variant, List<LoadRequest> requests,
            List<String> triageFlags, LoadGenerator generator) throws IOException, InterruptedException {
        if (!variant.throughTriage()) {
            return new Outcome(generator.run(URI.create(backendUrl), requests), 0);
        }
        try (Triage triage = startTriage(backendUrl, answers, variant, triageFlags)) {
            List<LoadResult> results = generator.run(URI.create("http://127.0.0.1:" + triage.address().getPort()), requests);
            return new Outcome(results, triage.queues().get(0).starvationPromotions());
        }
    }

    /** Triage in this process in front of the backend at {@code backendUrl}, as {@code variant} (one that goes through Triage) runs it. */
    static Triage startTriage(String backendUrl, AnswerBook answers, LoadVariant variant, List<String> triageFlags)
            throws InterruptedException {
        TriageConfig config = ConfigLoader.load(variant.triageFlags(backendUrl, triageFlags).toArray(String[]::new), Map.of());
        return variant.oracle() ? Triage.start(config, new WorkloadOracle(answers)) : Triage.start(config);
    }
}
