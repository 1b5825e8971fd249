package dev.triage.bench.sim;

import dev.triage.bench.stats.MeanSd;
import dev.triage.model.LengthClass;
import dev.triage.proxy.learning.BackendLearner;
import dev.triage.proxy.learning.LearnedServiceTime;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * What online learning does for the order of waiting requests, on the production code: a stream of
 * answered requests arrives as a Poisson process at utilisation ρ on a serial replay backend and is
 * ordered by the production {@link dev.triage.proxy.scheduler.Scheduler}, costed by the proxy's
 * {@link BackendLearner} learning from every answer as it completes, and again by the same learner
 * frozen ({@code --online-learning false}: the estimator's tokens and the flags' service time). The
 * same arrivals for both, one workload per seed.
 */
final class LearningScheduling {

    /** One policy's runs over the seeds, frozen and learning. */
    record Row(String policy, List<SimulationRun> frozen, List<SimulationRun> learning) {}

    private LearningScheduling() {}

    /**
     * @param speed the replay backend's prefill and per-token seconds
     * @param flags the configured service time: the learner's prior, and what the frozen learner serves
     */
    static List<Row> run(List<PrequentialReplay.Answered> stream, ServiceTimeModel speed, ServiceTimeModel flags,
            List<PolicyVariant> variants, double rho, List<Long> seeds) {
        SimulatedBackend backend = new SimulatedBackend(1, speed.secondsPerToken(), 0);
        List<Workload> workloads = seeds.stream().map(seed -> workload(stream, speed, flags, rho, seed)).toList();
        List<Row> rows = new ArrayList<>();
        for (PolicyVariant variant : variants) {
            List<SimulationRun> frozen = new ArrayList<>();
            List<SimulationRun> learning = new ArrayList<>();
            for (Workload workload : workloads) {
                for (boolean learns : new boolean[] {false, true}) {
                    BackendLearner learner = new BackendLearner("simulated/chat", "simulation", LearnedServiceTime.of(flags), learns);
                    (learns ? learning : frozen).add(Simulation.run(workload, variant, backend, new LearnerCosting(learner, stream)));
                }
            }
            rows.add(new Row(variant.name(), frozen, learning));
        }
        return rows;
    }

    /** The stream in its order, its answers' true lengths on the backend, arriving at ρ; request ids index the stream. */
    static Workload workload(List<PrequentialReplay.Answered> stream, ServiceTimeModel speed, ServiceTimeModel flags, double rho, long seed) {
        List<JobSize> sizes = stream.stream().map(answered -> JobSize.ofTokens(LengthClass.of(answered.actualTokens()).label(),
                (int) Math.round(answered.promptTokens()), Math.toIntExact(answered.actualTokens()), speed, null)).toList();
        double meanService = sizes.stream().mapToDouble(JobSize::serviceSeconds).average().orElseThrow();
        double[] times = ArrivalProcess.Poisson.atUtilisation(rho, meanService, 1).times(sizes.size(), new SplittableRandom(seed));
        List<SimRequest> requests = new ArrayList<>(sizes.size());
        for (int i = 0; i < sizes.size(); i++) {
            // The frozen estimate in seconds, for SimRequest's record only: the costing tells the scheduler.
            requests.add(new SimRequest(i, times[i], sizes.get(i), flags.seconds(stream.get(i).frozenTokens())));
        }
        return new Workload(requests);
    }

    /** Mean, short P50 and long P95 of the sojourn time, frozen against learning, mean ± sd over the seeds. */
    static String markdown(List<Row> rows) {
        StringBuilder table = new StringBuilder("| policy | frozen: mean (s) | short P50 (s) | long P95 (s) | learning: mean (s) | short P50 (s) | long P95 (s) |\n"
                + "|---|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            table.append("| ").append(row.policy());
            for (List<SimulationRun> runs : List.of(row.frozen(), row.learning())) {
                table.append(cell(runs, SimulationRun::meanSojournSeconds))
                        .append(cell(runs, run -> run.sojourn(LengthClass.SHORT.label()).p50()))
                        .append(cell(runs, run -> run.sojourn(LengthClass.LONG.label()).p95()));
            }
            table.append(" |\n");
        }
        return table.toString();
    }

    private static String cell(List<SimulationRun> runs, ToDoubleFunction<SimulationRun> figure) {
        MeanSd value = MeanSd.of(runs.stream().mapToDouble(figure).toArray());
        // A class the stream does not have (a terse model's long answers) has no figure.
        return Double.isNaN(value.mean()) ? " | –" : String.format(Locale.ROOT, " | %.2f ± %.2f", value.mean(), value.sd());
    }
}
