package dev.triage.bench.load;

import dev.triage.bench.backend.BatchSlowdown;
import dev.triage.bench.relay.AnswerLengthRelay;
import dev.triage.bench.replay.AnswerBook;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.bench.stats.LoadPoint;
import dev.triage.bench.stats.SummaryRow;
import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.model.cli.Progress;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Latency against load through the real proxy: requests drawn from the workload arrive as a Poisson
 * process at the rate that loads the backend to utilisation ρ ({@code λ = ρ × slots / E[S]}, E[S] the
 * workload's mean service time at the backend's speed), the same arrivals for every variant at a given
 * seed. The backend is the replay backend, or a real server ({@code realBackend}) behind an
 * {@link AnswerLengthRelay} that sets each request's limit to its answer's length where Triage cannot
 * read it (OpenAI's chat API only; oracle variants rank by that length); {@code speed} then describes
 * that server, for the arrival rate only. Gives the points the latency-vs-load charts draw: end to end
 * per class, and the time to first token as classes {@code ttft-short}, {@code ttft-long}, ...; and
 * each variant's throughput, its requests over the time from the first sent to the last answered.
 *
 * @param realBackend a real server's base URL, or null for the replay backend
 */
public final class PoissonBenchmark {

    /**
     * @param slots Triage's {@code --max-concurrency} unless a variant sets its own, and the slots ρ counts
     * @param backendSlots how many generations the replay backend runs at once
     * @param batchSlowdown how much longer the replay backend's decoding step takes as its batch grows
     * @param preemption how the real server continues a paused stream ({@code --preemption}), for laps variants
     */
    public record Settings(List<WorkloadEntry> workload, List<LoadVariant> variants, List<Double> rhos, int requests,
            int seeds, ServiceTimeModel speed, int slots, int backendSlots, BatchSlowdown batchSlowdown, List<String> triageFlags,
            ChatApi api, URI realBackend, Optional<String> preemption) {}

    /**
     * One load's results.
     *
     * @param figures each variant's completed requests per second and Triage's slots at the end
     *     of its runs, and the pauses, resumes and re-prefilled tokens of those that paused, mean ± sd
     *     over seeds, a line each
     */
    public record Point(LoadPoint latencies, String figures) {}

    private PoissonBenchmark() {}

    public static List<Point> run(Settings settings) throws IOException, InterruptedException {
        if (settings.realBackend() != null) {
            try (AnswerLengthRelay relay = AnswerLengthRelay.start(settings.realBackend())) {
                return sweep(settings, (variant, requests) -> LoadSession.run(relay, variant, requests, settings.triageFlags(),
                        settings.preemption()));
            }
        }
        AnswerBook answers = AnswerBook.of(settings.workload());
        try (ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .answers(answers).slots(settings.backendSlots()).speed(settings.speed())
                .batchSlowdown(settings.batchSlowdown()).build())) {
            return sweep(settings, (variant, requests) ->
                    LoadSession.run(backend, answers, variant, requests, settings.triageFlags(), settings.api()));
        }
    }

    private static List<Point> sweep(Settings settings, LoadSession.Runner runner)
            throws IOException, InterruptedException {
        double meanService = settings.workload().stream()
                .mapToDouble(e -> e.serviceSeconds(settings.speed()))
                .average().orElseThrow();
        List<Point> points = new ArrayList<>();
        // Each run lasts about as long as its arrivals take to come: requests over the arrival rate.
        int runsPerRho = settings.variants().size() * settings.seeds();
        double expectedSeconds = settings.rhos().stream()
                .mapToDouble(rho -> runsPerRho * settings.requests() * meanService / (rho * settings.slots())).sum();
        Progress progress = Progress.start("Poisson load runs (" + settings.requests() + " requests each)",
                runsPerRho * settings.rhos().size(), Duration.ofMillis(Math.round(expectedSeconds * 1000)));
        for (double rho : settings.rhos()) {
            double rate = rho * settings.slots() / meanService;
            List<SummaryRow> rows = new ArrayList<>();
            List<RunSummaries> variants = new ArrayList<>();
            for (LoadVariant variant : settings.variants()) {
                RunSummaries summaries = new RunSummaries(variant.name());
                variants.add(summaries);
                for (int seed = 0; seed < settings.seeds(); seed++) {
                    summaries.add(runner.run(variant, arrivals(settings.workload(), settings.requests(), rate, seed)));
                    progress.step();
                }
                rows.addAll(summaries.endToEnd());
                rows.addAll(summaries.firstToken().stream()
                        .map(row -> new SummaryRow(row.policy(), "ttft-" + row.jobClass(), row.requests(), row.sojourn(), row.tauFired()))
                        .toList());
            }
            points.add(new Point(new LoadPoint(rho, rows), RunSummaries.serving(variants).strip()));
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
