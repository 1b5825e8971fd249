package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.sizing.ChatEstimation.FallbackReason;
import dev.triage.proxy.testing.HeldEstimator;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ChatEstimationTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** The configured estimator's estimate of every prompt: 7 tokens, far from the baseline's 128 or more. */
    private static final double CONFIGURED_TOKENS = 7;

    private ChatEstimation loading(JobEstimator<Prompt> fallback) {
        return ChatEstimation.loading("configured", fallback, this::timer, this::fallbacks);
    }

    private ChatEstimation ready(JobEstimator<Prompt> estimator, JobEstimator<Prompt> fallback) {
        return ChatEstimation.ready(estimator, fallback, this::timer, this::fallbacks);
    }

    private Timer timer(String estimator) {
        return Timer.builder("estimator").tag("estimator", estimator).register(registry);
    }

    private Counter fallbacks(String reason) {
        return Counter.builder("fallbacks").tag("reason", reason).register(registry);
    }

    private double fallbacks(FallbackReason reason) {
        return registry.get("fallbacks").tag("reason", reason.label()).counter().count();
    }

    private long timed(String estimator) {
        return registry.get("estimator").tag("estimator", estimator).timer().count();
    }

    private static double tokens(CompletableFuture<Estimated> estimate) throws Exception {
        return estimate.get(10, TimeUnit.SECONDS).estimate().expectedTokens();
    }

    private static final Prompt PROMPT = new Prompt("What is 2 + 2?");
    private static final double BASELINE_TOKENS = new BaselineEstimator().estimate(PROMPT).expectedTokens();

    @Test
    void whileTheModelLoadsTheFallbackSizesAtOnceAndTheModelTakesOverWhenInstalled() throws Exception {
        try (ChatEstimation estimation = loading(new BaselineEstimator())) {
            assertEquals(ChatEstimation.State.LOADING, estimation.state());
            CompletableFuture<Estimated> early = estimation.estimate(PROMPT);
            assertTrue(early.isDone(), "no wait for the model");
            assertEquals(BASELINE_TOKENS, tokens(early));
            assertEquals(1, fallbacks(FallbackReason.LOADING));
            assertEquals(1, timed(BaselineEstimator.NAME));

            estimation.install(HeldEstimator.<Prompt>free("configured", CONFIGURED_TOKENS).markedExpensive());
            assertEquals(ChatEstimation.State.READY, estimation.state());
            assertEquals(CONFIGURED_TOKENS, tokens(estimation.estimate(PROMPT)));
            assertEquals(1, fallbacks(FallbackReason.LOADING), "no fallback once it is ready");
            assertEquals(1, timed("configured"));
        }
    }

    @Test
    void aModelLoadedInTheBackgroundByTheReloaderTakesOverOnceChecked() throws Exception {
        CountDownLatch loaderGate = new CountDownLatch(1);
        Supplier<JobEstimator<Prompt>> slowLoader = () -> {
            try {
                assertTrue(loaderGate.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return HeldEstimator.<Prompt>free("configured", CONFIGURED_TOKENS).markedExpensive();
        };
        try (ChatEstimation estimation = loading(new BaselineEstimator());
                ModelReloader loader = new ModelReloader(estimation::install, slowLoader, "test")) {
            CompletableFuture<ModelReloader.Result> loaded = loader.reload();
            assertEquals(BASELINE_TOKENS, tokens(estimation.estimate(PROMPT)), "sized while the model loads");
            assertEquals(ChatEstimation.State.LOADING, estimation.state());
            loaderGate.countDown();
            assertTrue(loaded.get(10, TimeUnit.SECONDS).reloaded());
            assertEquals(CONFIGURED_TOKENS, tokens(estimation.estimate(PROMPT)));
        }
    }

    @Test
    void aModelThatCouldNotLoadLeavesTheFallbackUntilOneIsInstalled() throws Exception {
        try (ChatEstimation estimation = loading(new BaselineEstimator())) {
            estimation.loadFailed();
            assertEquals(ChatEstimation.State.UNAVAILABLE, estimation.state());
            assertEquals(BASELINE_TOKENS, tokens(estimation.estimate(PROMPT)));
            assertEquals(1, fallbacks(FallbackReason.UNAVAILABLE));
            estimation.install(HeldEstimator.<Prompt>free("configured", CONFIGURED_TOKENS));
            assertEquals(CONFIGURED_TOKENS, tokens(estimation.estimate(PROMPT)));
            estimation.loadFailed();
            assertEquals(ChatEstimation.State.READY, estimation.state(), "a later failed reload keeps the serving model");
        }
    }

    @Test
    void aSaturatedExecutorHandsTheSurplusToTheFallbackAtOnceAndScoresItOnceCaughtUp() throws Exception {
        HeldEstimator<Prompt> gated = HeldEstimator.<Prompt>held("configured", CONFIGURED_TOKENS).markedExpensive();
        try (ChatEstimation estimation = ready(gated, new BaselineEstimator())) {
            List<CompletableFuture<Estimated>> estimates = new ArrayList<>();
            assertTrue(gated.entered.await(10, TimeUnit.SECONDS), "the batcher times its warm-up prompts first");
            int surplus = 7;
            for (int i = 0; i < ChatEstimation.BATCH + surplus; i++) {
                estimates.add(estimation.estimate(PROMPT));
            }
            // Before anything has been timed one batch may wait; the rest are sized now, by the fallback.
            long sizedNow = estimates.stream().filter(CompletableFuture::isDone).count();
            assertEquals(surplus, sizedNow);
            assertEquals(surplus, fallbacks(FallbackReason.SATURATED));
            assertEquals(surplus, estimation.fallbacks());
            List<CompletableFuture<Estimate>> better = new ArrayList<>();
            for (CompletableFuture<Estimated> estimate : estimates) {
                if (estimate.isDone()) {
                    assertEquals(BASELINE_TOKENS, tokens(estimate));
                    better.add(estimate.join().better().ask().orElseThrow());
                }
            }
            assertTrue(better.stream().noneMatch(CompletableFuture::isDone), "refined only once the estimator is free");
            gated.release.countDown();
            long configured = 0;
            for (CompletableFuture<Estimated> estimate : estimates) {
                configured += tokens(estimate) == CONFIGURED_TOKENS ? 1 : 0;
            }
            assertEquals(ChatEstimation.BATCH, configured, "every prompt that waited got the configured estimate");
            for (CompletableFuture<Estimate> estimate : better) {
                assertEquals(CONFIGURED_TOKENS, estimate.get(10, TimeUnit.SECONDS).expectedTokens(),
                        "each prompt the fallback sized is scored by the configured estimator once it has caught up");
            }
            assertEquals(surplus, fallbacks(FallbackReason.SATURATED), "a refined estimate is not a fallback");
        }
    }

    @Test
    void aSentRequestIsScoredByAnExpensiveEstimatorOnlyWhenItHasNothingElseToScore() throws Exception {
        HeldEstimator<Prompt> gated = HeldEstimator.<Prompt>held("configured", CONFIGURED_TOKENS).markedExpensive();
        try (ChatEstimation estimation = ready(HeldEstimator.<Prompt>free("first", 1).markedExpensive(), new BaselineEstimator())) {
            estimation.estimate(PROMPT).get(10, TimeUnit.SECONDS); // scored after the warm-up prompts: the estimator is idle now
            estimation.install(gated);
            CompletableFuture<Estimated> idle = estimation.estimateSent(PROMPT);
            assertTrue(gated.entered.await(10, TimeUnit.SECONDS), "an idle estimator scores a sent request's prompt");

            CompletableFuture<Estimated> busy = estimation.estimateSent(PROMPT);
            assertTrue(busy.isDone(), "sized at once while the estimator is busy");
            assertEquals(BASELINE_TOKENS, tokens(busy));
            assertTrue(busy.join().byFallback());
            assertTrue(busy.join().better().ask().isEmpty(), "nothing queued for a request that no longer waits");
            assertEquals(1, fallbacks(FallbackReason.SENT));

            gated.release.countDown();
            assertEquals(CONFIGURED_TOKENS, tokens(idle));
            assertFalse(idle.join().byFallback());
            assertEquals(1, timed("configured"), "the estimator scored the one prompt it was free for");
        }
    }

    @Test
    void aCheapEstimatorSizesEverySentRequestItself() throws Exception {
        try (ChatEstimation estimation = ready(HeldEstimator.free("configured", CONFIGURED_TOKENS), new BaselineEstimator())) {
            CompletableFuture<Estimated> sent = estimation.estimateSent(PROMPT);
            assertEquals(CONFIGURED_TOKENS, tokens(sent));
            assertFalse(sent.join().byFallback());
            assertEquals(0, estimation.fallbacks());
        }
    }

    @Test
    void aFailureIsSizedByTheFallbackOrFailsTheRequestWhenThereIsNone() throws Exception {
        HeldEstimator<Prompt> expensive = HeldEstimator.<Prompt>free("configured", CONFIGURED_TOKENS).markedExpensive()
                .failing(new IllegalStateException("model crashed"));
        try (ChatEstimation estimation = ready(expensive, new BaselineEstimator())) {
            assertEquals(BASELINE_TOKENS, tokens(estimation.estimate(PROMPT)));
            assertEquals(1, fallbacks(FallbackReason.FAILED));
        }
        HeldEstimator<Prompt> cheap = HeldEstimator.<Prompt>free("configured", CONFIGURED_TOKENS)
                .failing(new IllegalStateException("model crashed"));
        try (ChatEstimation estimation = ready(cheap, new BaselineEstimator())) {
            assertEquals(BASELINE_TOKENS, tokens(estimation.estimate(PROMPT)));
            assertEquals(2, fallbacks(FallbackReason.FAILED));
        }
        try (ChatEstimation estimation = ready(cheap, null)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> estimation.estimate(PROMPT).get(10, TimeUnit.SECONDS));
            assertEquals("model crashed", e.getCause().getMessage());
        }
    }

    @Test
    void aModelInstalledAfterCloseIsClosed() {
        ChatEstimation estimation = loading(new BaselineEstimator());
        estimation.close();
        HeldEstimator<Prompt> late = HeldEstimator.<Prompt>free("configured", CONFIGURED_TOKENS).markedExpensive();
        estimation.install(late);
        assertTrue(late.closed());
        assertEquals(ChatEstimation.State.LOADING, estimation.state());
    }
}
