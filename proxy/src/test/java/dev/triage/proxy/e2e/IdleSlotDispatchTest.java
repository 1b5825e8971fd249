package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A request that finds a slot free and nobody waiting is sent at once and sized after: an estimator
 * that takes its time delays neither the request nor its answer, and its estimate still reaches the
 * metrics.
 */
class IdleSlotDispatchTest {

    /** An expensive estimator that answers only once the test lets it. */
    private static final class HeldEstimator implements JobEstimator<Prompt> {
        final CountDownLatch answer = new CountDownLatch(1);
        final AtomicInteger asked = new AtomicInteger();

        @Override
        public String name() {
            return "held";
        }

        @Override
        public Estimate estimate(Prompt prompt) {
            asked.incrementAndGet();
            try {
                answer.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Estimate.ofTokens(77);
        }

        @Override
        public boolean expensive() {
            return true;
        }
    }

    @Test
    void anEstimatorThatTakesItsTimeNeverDelaysARequestThatFindsASlotFree() throws Exception {
        HeldEstimator estimator = new HeldEstimator();
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start(estimator, "--backend", backend.url())) {
            HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.uncapped("goes at once"));
            assertEquals(200, response.statusCode(), response.body());
            assertEquals("0", response.headers().firstValue("x-triage-queue-ms").orElseThrow());
            assertTrue(response.headers().firstValue("x-triage-estimate-tokens").isEmpty(),
                    "answered before the estimate was made, so no estimate to show");
            Await.until("the slot free again", () -> triage.chatQueue().busySlots() == 0);
            Await.until("the estimator asked", () -> estimator.asked.get() == 1);
            assertEquals(0, PrometheusText.sum(triage.get("/metrics").body(), "triage_request_seconds_count", Map.of()),
                    "the record waits for its estimate");

            estimator.answer.countDown();
            String metrics = triage.metricsAfter(1);
            Map<String, String> chat = Map.of("backend", "chat");
            assertEquals(1, PrometheusText.sum(metrics, "triage_estimate_tokens_count", chat), metrics);
            assertEquals(77, PrometheusText.sum(metrics, "triage_estimate_tokens_sum", chat), metrics);
        }
    }
}
