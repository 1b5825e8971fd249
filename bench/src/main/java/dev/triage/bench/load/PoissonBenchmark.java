package dev.triage.bench.load;

import dev.triage.bench.relay.AnswerLengthRelay;
import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LoadPoint;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.features.PromptTokens;
import dev.triage.model.cli.Progress;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Latency against load through the real proxy: requests drawn from the workload arrive as a Poisson
 * process at the rate that loads the backend to utilisation ρ ({@code λ = ρ × slots / E[S]}, E[S] the
 * workload's mean service time at the backend's speed), the same arrivals for every variant at a given
 * seed. The backend is the replay backend, or a real server ({@code realBackend}) behind an
 * {@link AnswerLengthRelay} that sets each request's limit to its answer's length where Triage cannot
 * read it (OpenAI's chat API only; oracle variants rank by that length); {@code speed} then describes
 * that server, for the arrival rate only. Gives the points the latency-vs-load charts draw: end to end
 * per class, and the time to first token as classes {@code ttft-short}, {@code ttft-long}, ...
 *
 * @param realBackend a real server's base URL, or null for the replay backend
 */
public final class PoissonBenchmark {

    public record Settings(List<WorkloadEntry> workload, List<LoadVariant> variants, List<Double> rhos, int requests,
            int seeds, ServiceTimeModel speed, int slots, List<String> triageFlags, ChatApi api, URI realBackend) {}

    private PoissonBenchmark() {}

    public static List<LoadPoint> run(Settings settings) throws IOException, InterruptedException {
        if (settings.realBackend() != null) {
            try (AnswerLengthRelay relay = AnswerLengthRelay.start(settings.realBackend())) {
                return sweep(settings, (variant, requests) -> LoadSession.run(relay, variant, requests, settings.triageFlags()));
            }
        }
        AnswerBook answers = AnswerBook.of(settings.workload());
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .answers(answers).slots(settings.slots()).speed(settings.speed()).build())) {
            return sweep(settings, (variant, requests) ->
                    LoadSession.run(backend, answers, variant, requests, settings.triageFlags(), settings.api()));
        }
    }

    private static List<LoadPoint> sweep(Settings settings, LoadSession.Runner runner)
            throws IOException, InterruptedException {
        double meanService = settings.workload().stream()
                .mapToDouble(e -> settings.speed().seconds(PromptTokens.approximate(e.prompt()), e.answerTokens()))
                .average().orElseThrow();
        List<LoadPoint> points = new ArrayList<>();
        // Each run lasts about as long as its arrivals take to come: requests over the arrival rate.
        int runsPerRho = settings.variants().size() * settings.seeds();
        double expectedSeconds = settings.rhos().stream()
                .mapToDouble(rho -> runsPerRho * settings.requests() * meanService / (rho * settings.slots())).sum();
        Progress progress = Progress.start("Poisson load runs (" + settings.requests() + " requests each)",
                runsPerRho * settings.rhos().size(), Duration.ofMillis(Math.round(expectedSeconds * 1000)));
        for (double rho : settings.rhos()) {
            double rate = rho * settings.slots() / meanService;
            List<SummaryRow> rows = new ArrayList<>();
            for (LoadVariant variant : settings.variants()) {
                RunSummaries summaries = new RunSummaries(variant.name());
                for (int seed = 0; seed < settings.seeds(); seed++) {
                    summaries.add(runner.run(variant, arrivals(settings.workload(), settings.requests(), rate, seed)));
                    progress.step();
                }
                rows.addAll(summaries.endToEnd());
                rows.addAll(summaries.firstToken().stream()
                        .map(row -> new SummaryRow(row.policy(), "ttft-" + row.jobClass(), row.requests(), row.sojourn(), row.tauFired()))
                        .toList());
            }
            points.add(new LoadPoint(rho, rows));
        }
        progress.done();
        return points;
    }

    /** {@code n} requests drawn with replacement, exponential gaps at {@code rate} per second. */
    static List<LoadRequest> arrivals(List<WorkloadEntry> workload, int n, double rate, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<LoadRequest> requests = new ArrayList<>(n);
        double at = 0;
        for (int i = 0; i < n; i++) {
            requests.add(new LoadRequest(workload.get(random.nextInt(workload.size())), at));
            at += -Math.log(1 - random.nextDouble()) / rate;
        }
        return requests;
    }
}
