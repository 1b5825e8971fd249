package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.HeldEstimator;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A request that finds a slot free and nobody waiting is sent at once and sized after: an estimator
 * that takes its time delays neither the request nor its answer, and its estimate still reaches the
 * metrics.
 */
class IdleSlotDispatchTest {

    @Test
    void anEstimatorThatTakesItsTimeNeverDelaysARequestThatFindsASlotFree() throws Exception {
        HeldEstimator<Prompt> estimator = HeldEstimator.<Prompt>held("held", 77).markedExpensive();
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start(estimator, "--backend", backend.url())) {
            HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.uncapped("goes at once"));
            assertEquals(200, response.statusCode(), response.body());
            assertEquals("0", response.headers().firstValue("x-triage-queue-ms").orElseThrow());
            assertTrue(response.headers().firstValue("x-triage-estimate-tokens").isEmpty(),
                    "answered before the estimate was made, so no estimate to show");
            Await.until("the slot free again", () -> triage.chatQueue().busySlots() == 0);
            assertTrue(estimator.entered.await(30, TimeUnit.SECONDS), "sized while it was relayed");
            assertEquals(0, PrometheusText.sum(triage.get("/metrics").body(), "triage_request_seconds_count", Map.of()),
                    "the record waits for its estimate");

            estimator.release.countDown();
            String metrics = triage.metricsAfter(1);
            Map<String, String> chat = Map.of("backend", "chat");
            assertEquals(1, PrometheusText.sum(metrics, "triage_estimate_tokens_count", chat), metrics);
            assertEquals(77, PrometheusText.sum(metrics, "triage_estimate_tokens_sum", chat), metrics);
        }
    }
}
