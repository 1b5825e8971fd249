package dev.triage.bench.sim;

import dev.triage.bench.stats.LoadPoint;
import dev.triage.bench.stats.SummaryRow;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.LongFunction;

/**
 * Latency against load: the same experiment at each utilisation ρ. With Poisson arrivals the seeds'
 * arrival patterns are the same at every ρ, only stretched, so the curves are smooth.
 */
public final class LoadSweep {

    private LoadSweep() {}

    public static List<LoadPoint> run(DoubleFunction<LongFunction<Workload>> workloadAt, List<PolicyVariant> variants,
            SimulatedBackend backend, List<Double> rhos, List<Long> seeds) {
        List<LoadPoint> points = new ArrayList<>();
        for (double rho : rhos) {
            points.add(new LoadPoint(rho, new Experiment(variants, backend, seeds, workloadAt.apply(rho)).run()));
        }
        return points;
    }

    /** Writes every row with its ρ first: {@code rho,policy,class,...} as in {@link SummaryCsv}. */
    public static void writeCsv(Path file, List<LoadPoint> points) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writer.write("rho," + String.join(",", SummaryCsv.header()) + "\n");
            for (LoadPoint point : points) {
                for (SummaryRow row : point.rows()) {
                    writer.write(String.format(Locale.ROOT, "%.3f,", point.rho()) + String.join(",", SummaryCsv.cells(row)) + "\n");
                }
            }
        }
    }
}
