package dev.triage.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class TenantShareBenchmarkTest {

    private static final ServiceTimeModel SPEED = new ServiceTimeModel(0.01, 0, 0.002);
    private static final List<WorkloadEntry> WORKLOAD = List.of(
            new WorkloadEntry("Name a colour.", 20, "short", "test"),
            new WorkloadEntry("Write an essay on rivers.", 900, "long", "test"),
            new WorkloadEntry("Say hello.", 10, "short", "test"));

    @Test
    void theFloodComesAtOnceAndOutlastsTheWindowWhileTheSteadyTenantSendsWithinIt() {
        TenantShareBenchmark.Settings settings = new TenantShareBenchmark.Settings(WORKLOAD, SPEED, List.of(), 30, 0.8, "", 1);
        List<LoadRequest> requests = TenantShareBenchmark.requests(settings);
        List<LoadRequest> flood = requests.stream()
                .filter(r -> r.apiKey().orElseThrow().equals(TenantShareBenchmark.FLOOD_KEY)).toList();
        List<LoadRequest> steady = requests.stream()
                .filter(r -> r.apiKey().orElseThrow().equals(TenantShareBenchmark.STEADY_KEY)).toList();
        assertEquals(requests.size(), flood.size() + steady.size());
        assertTrue(flood.stream().allMatch(r -> r.sendAtSeconds() == 0 && r.entry().jobClass().equals("short")));
        double floodWork = flood.stream().mapToDouble(r -> SPEED.seconds(0, r.entry().answerTokens())).sum();
        assertTrue(floodWork >= 1.5 * 30 * 0.9, "flood work " + floodWork + " s");
        assertTrue(steady.size() > 5 && steady.stream().allMatch(r -> r.sendAtSeconds() > 0 && r.sendAtSeconds() < 30));
        // Triage caps an estimate by the request's own limit: none is sent, so the estimator is measured.
        for (LoadRequest request : requests) {
            assertFalse(LoadGenerator.chatBody(request.entry(), false).has("max_tokens"));
        }
    }
}
