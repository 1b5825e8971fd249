package dev.triage.proxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.triage.model.Estimate;
import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.scheduler.Clock;
import dev.triage.proxy.scheduler.DispatchLoop;
import dev.triage.proxy.scheduler.JobListener;
import dev.triage.proxy.scheduler.JobTag;
import dev.triage.proxy.scheduler.Policy;
import dev.triage.proxy.scheduler.Refusal;
import dev.triage.proxy.scheduler.SchedulerSettings;
import dev.triage.proxy.scheduler.Slot;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.PrometheusText;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TriageMetricsTest {

    private final TriageMetrics metrics = new TriageMetrics();

    @AfterEach
    void close() {
        metrics.close();
    }

    private static RequestRecord completed(String backend, double estimate, long actual) {
        RequestRecord record = new RequestRecord("id", "/v1/chat/completions", "chat", backend, 0);
        record.sized(Estimate.ofTokens(estimate), 0, estimate, false, 40, OptionalInt.empty());
        record.dispatched(2_000_000, false, 1);
        record.firstByte(5_000_000);
        record.responded(200);
        record.actualTokens(OptionalLong.of(actual));
        record.end(Outcome.OK, null, 9_000_000);
        return record;
    }

    private static RequestRecord rejected(String reason) {
        RequestRecord record = new RequestRecord("id", "/v1/chat/completions", "chat", "chat", 0);
        record.responded(429);
        record.end(Outcome.REJECTED, reason, 1_000_000);
        return record;
    }

    private double sum(String name, Map<String, String> labels) {
        return PrometheusText.sum(metrics.scrape(null).body(), name, labels);
    }

    @Test
    void everyRequestCountsInTheSeriesOfItsLabels() {
        String shortClass = Estimate.ofTokens(10).lengthClass().label();
        metrics.finished(completed("chat", 10, 12));
        metrics.finished(completed("chat", 10, 8));
        metrics.finished(completed("audio", 10, 3));
        metrics.finished(rejected("queue_full"));
        metrics.finished(rejected("queue_full"));
        metrics.finished(rejected("invalid_request"));

        assertEquals(2, sum("triage_request_seconds_count", Map.of("backend", "chat", "class", shortClass, "outcome", "ok")));
        assertEquals(1, sum("triage_request_seconds_count", Map.of("backend", "audio", "outcome", "ok")));
        assertEquals(3, sum("triage_request_seconds_count", Map.of("class", "unknown", "outcome", "rejected")));
        assertEquals(2, sum("triage_queue_wait_seconds_count", Map.of("backend", "chat", "class", shortClass)));
        assertEquals(0.004, sum("triage_queue_wait_seconds_sum", Map.of("backend", "chat")), 1e-9);
        assertEquals(2, sum("triage_time_to_first_byte_seconds_count", Map.of("backend", "chat")));
        assertEquals(2, sum("triage_rejected_total", Map.of("reason", "queue_full")));
        assertEquals(1, sum("triage_rejected_total", Map.of("reason", "invalid_request")));
        assertEquals(20, sum("triage_estimate_tokens_sum", Map.of("backend", "chat")));
        assertEquals(20, sum("triage_actual_tokens_sum", Map.of("backend", "chat")));
        assertEquals(3, sum("triage_actual_tokens_sum", Map.of("backend", "audio")));
    }

    @Test
    void anEstimatorsTimerIsResolvedOnce() {
        assertSame(metrics.estimatorTimer("classifier"), metrics.estimatorTimer("classifier"));
        metrics.estimatorTimer("classifier").record(Duration.ofMillis(1));
        metrics.estimatorTimer("ranker").record(Duration.ofMillis(1));
        assertEquals(1, sum("triage_estimator_seconds_count", Map.of("estimator", "classifier")));
    }

    @Test
    void theChatQueueCanBeReadUnderVllmsNames() {
        try (DispatchLoop loop = new DispatchLoop(Clock.system())) {
            BackendQueue queue = loop.addBackend("chat", new SchedulerSettings(Policy.SJF, Duration.ZERO, 10, 2), Duration.ZERO);
            metrics.bindQueue(queue);
            assertEquals(Map.of(), vllmSeries(), "only when asked for");

            metrics.bindVllmNames(queue);
            for (int i = 0; i < 3; i++) {
                queue.submit(new JobTag("id" + i, "chat"), 0, 100, 2, Runnable::run, HOLD_THE_SLOT);
            }
            Await.until("two running, one waiting", () -> queue.waitingCount() == 1 && queue.busySlots() == 2);

            assertEquals(1, sum("vllm:num_requests_waiting", Map.of()));
            assertEquals(2, sum("vllm:num_requests_running", Map.of()));
            assertEquals(1.0, sum("vllm:kv_cache_usage_perc", Map.of()));
        }
    }

    private static final JobListener HOLD_THE_SLOT = new JobListener() {
        @Override
        public void dispatched(Slot slot) {}

        @Override
        public void refused(Refusal refusal) {}
    };

    private Map<String, ?> vllmSeries() {
        return PrometheusText.series(metrics.scrape(null).body()).entrySet().stream()
                .filter(e -> e.getKey().startsWith("vllm:"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
}
