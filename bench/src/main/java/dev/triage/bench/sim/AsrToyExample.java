package dev.triage.bench.sim;

import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.scheduler.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Figure 1 of the ASR duration-aware scheduling paper: R1, R2, R3 arrive together, in that order,
 * with 8 s, 4 s and 2 s of audio. At 5 output tokens per audio second they produce 40, 20 and 10
 * tokens; the figure's timings (5 s, 3 s, 2 s of service) are a 1 s encoder plus 0.1 s per token.
 * FCFS finishes them at 5, 8 and 10 s, mean 23/3 s; SJF at 2, 5 and 10 s, mean 17/3 s. The paper
 * prints 7.66 and 5.66, truncating 7.666… and 5.666….
 */
public final class AsrToyExample {

    static final double[] AUDIO_SECONDS = {8, 4, 2};
    static final double TOKENS_PER_AUDIO_SECOND = 5;
    static final ServiceTimeModel SERVICE_TIME = new ServiceTimeModel(1, 0.1);

    private AsrToyExample() {}

    public static Workload workload() {
        List<SimRequest> requests = new ArrayList<>();
        for (int i = 0; i < AUDIO_SECONDS.length; i++) {
            double seconds = SERVICE_TIME.seconds(AUDIO_SECONDS[i] * TOKENS_PER_AUDIO_SECOND);
            requests.add(new SimRequest(i, 0, "R" + (i + 1), seconds, seconds));
        }
        return new Workload(requests);
    }

    public static SimulationRun run(Policy policy) {
        return Simulation.run(workload(), new PolicyVariant(policy.label(), policy, Duration.ZERO, false),
                SimulatedBackend.slots(1));
    }

    /** The example's two runs, as a table of completion times and means. */
    public static String report() {
        StringBuilder text = new StringBuilder();
        text.append("ASR duration-aware scheduling, Figure 1: three requests at t = 0, audio 8 s, 4 s, 2 s;\n");
        text.append("service = 1 s encoder + 0.1 s x (5 tokens per audio second), one slot.\n\n");
        text.append(String.format(Locale.ROOT, "%-6s %-28s %-10s %s%n", "policy", "finish R1, R2, R3 (s)", "mean (s)", "paper"));
        double fcfs = 0;
        for (Policy policy : List.of(Policy.FCFS, Policy.SJF)) {
            SimulationRun run = run(policy);
            double[] finish = new double[AUDIO_SECONDS.length];
            for (CompletedRequest completed : run.completed()) {
                finish[completed.request().id()] = completed.sojournSeconds();
            }
            double mean = run.meanSojournSeconds();
            if (policy == Policy.FCFS) {
                fcfs = mean;
            }
            text.append(String.format(Locale.ROOT, "%-6s %-28s %-10s %s%n", policy.label(),
                    String.format(Locale.ROOT, "%.2f, %.2f, %.2f", finish[0], finish[1], finish[2]),
                    String.format(Locale.ROOT, "%.4f", mean), policy == Policy.FCFS ? "7.66" : "5.66"));
            if (policy == Policy.SJF) {
                text.append(String.format(Locale.ROOT, "%nFCFS / SJF = %.4f (paper: \"around 1.4 times\"); "
                        + "means are 23/3 and 17/3 s, which the paper truncates to 7.66 and 5.66.%n", fcfs / mean));
            }
        }
        return text.toString();
    }
}
