package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.scheduler.QueueSnapshot;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.HeldEstimator;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import dev.triage.proxy.testing.ShippedRankerFiles;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An estimate for every request: the configured estimator sizes requests whenever it can, and the
 * fallback stands in, counted, while it cannot — never a refusal, never a silent substitute.
 */
class EstimatorFallbackTest {

    private static final List<String> PROMPTS = List.of("What is 2 + 2?", "Translate 'good morning' into French.",
            "Write a detailed, multi-part essay on the history of the printing press, with a heading for each part.",
            "Implement a red-black tree in Java with insertion, deletion and an iterator, and explain each rotation.",
            "Give me three names for a cat.");

    private static final Map<String, String> CHAT = Map.of("backend", "chat");

    /**
     * The estimate that sized a chat of {@code prompt}, as the metrics record it: a request that finds
     * the slot free is sent at once and may be answered before an expensive estimator has its
     * estimate (then without the header), but it is recorded only once sized. One request at a time,
     * so the estimates' sum grows by this one's.
     */
    private static long recordedEstimate(RunningTriage triage, String prompt) throws Exception {
        String before = triage.get("/metrics").body();
        int ended = (int) PrometheusText.sum(before, "triage_request_seconds_count", Map.of());
        double sum = PrometheusText.sum(before, "triage_estimate_tokens_sum", CHAT);
        HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.uncapped(prompt));
        assertEquals(200, response.statusCode(), response.body());
        return Math.round(PrometheusText.sum(triage.metricsAfter(ended + 1), "triage_estimate_tokens_sum", CHAT) - sum);
    }

    private static double fallbacks(RunningTriage triage, String reason) throws Exception {
        return PrometheusText.sum(triage.get("/metrics").body(), "triage_estimator_fallbacks_total",
                reason == null ? Map.of() : Map.of("reason", reason));
    }

    @Test
    void theConfiguredRankerSizesEveryRequestOnceLoadedAndIsNeverSilentlyReplaced() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--estimator", "ranker");
                RankerEstimator ranker = RankerEstimator.loadDefault();
                LexicalEstimator fallback = LexicalEstimator.loadDefault()) {
            triage.awaitEstimator("ready");
            double before = fallbacks(triage, null);
            int differ = 0;
            for (String prompt : PROMPTS) {
                long expected = Math.round(ranker.estimate(new Prompt(prompt)).expectedTokens());
                assertEquals(expected, recordedEstimate(triage, prompt), prompt);
                differ += expected != Math.round(fallback.estimate(new Prompt(prompt)).expectedTokens()) ? 1 : 0;
            }
            assertTrue(differ >= 4, "the prompts tell the ranker from its fallback: " + differ + " of " + PROMPTS.size());
            assertEquals(before, fallbacks(triage, null), "not one request sized by the fallback once the ranker is ready");
        }
    }

    /**
     * Requests that find the slot free are sent at once and sized after (by the estimator in its spare
     * time, else by the fallback), so the held estimator holds back none of them; of those that wait,
     * the ones beyond one batch get the fallback's estimate.
     */
    @Test
    void aSaturatedEstimatorHandsTheSurplusToTheFallbackAndNoRequestIsRefused() throws Exception {
        HeldEstimator<Prompt> gated = HeldEstimator.<Prompt>held("gated", 7).markedExpensive();
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                // Frozen: the prompts below differ only in their numbers, so the learner would blend their
                // estimates with their answers as repeats, and the sum below counts the estimators' own.
                RunningTriage triage = RunningTriage.start(gated, "--backend", backend.url(), "--estimator-fallback", "baseline",
                        "--online-learning", "false")) {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            // As long as every other prompt, so that the fallback's estimates of all are equal.
            responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.uncapped("prompt --")));
            assertTrue(gated.entered.await(30, TimeUnit.SECONDS));
            // One batch of 32 may wait for an estimator not yet timed (held on its warm-up prompts); the rest cannot wait.
            int surplus = 8;
            for (int i = 0; i < 32 + surplus; i++) {
                responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.uncapped(String.format(Locale.ROOT, "prompt %02d", i))));
            }
            // Event loops take prompts side by side, so a few more than one batch may slip in to wait.
            int slipped = 3;
            Await.until("the surplus sized by the fallback while the estimator is held", () -> {
                try {
                    return fallbacks(triage, "saturated") + fallbacks(triage, "sent") >= surplus - slipped;
                } catch (Exception e) {
                    return false;
                }
            });
            gated.release.countDown();
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(2, TimeUnit.MINUTES).statusCode());
            }
            double saturated = fallbacks(triage, "saturated");
            double sent = fallbacks(triage, "sent");
            // The first request, sent at once, is scored in the estimator's spare time (no other prompt waited when it
            // was sized), so its prompt may hold one of the batch's places.
            assertTrue(saturated <= surplus + 1, "only the surplus beyond one batch that waits: " + saturated);
            assertTrue(saturated + sent >= surplus - slipped, "the surplus, sent or waiting: " + saturated + " + " + sent);
            String metrics = triage.metricsAfter(responses.size());
            assertEquals(responses.size(), PrometheusText.sum(metrics, "triage_estimate_tokens_count", CHAT),
                    "every request sized, by one or the other");
            // A surplus request still waiting once the estimator caught up went by its estimate in the end.
            BaselineEstimator baseline = new BaselineEstimator();
            double baselineEach = baseline.estimate(new Prompt("prompt 10")).expectedTokens(); // as long as every surplus prompt
            double bySurplus = PrometheusText.sum(metrics, "triage_estimate_tokens_sum", CHAT) - 7 * responses.size();
            double keptFallback = bySurplus / (baselineEach - 7);
            assertEquals(Math.round(keptFallback), keptFallback, 0.001, "each request sized by the fallback or the estimator");
            assertTrue(keptFallback >= sent && keptFallback <= sent + saturated,
                    "the sent requests and only the surplus by the fallback: " + keptFallback);
            assertEquals(0, PrometheusText.sum(metrics, "triage_rejected_total", Map.of()));
        }
    }

    /**
     * The estimator is held while a busy request holds the slot: one batch waits for it, the surplus is
     * queued at once with the fallback's (larger) estimates. Once the estimator is free it scores the
     * surplus too, and the surplus, still waiting, goes by those estimates: all equal, so in arrival
     * order, ahead of the batch. Sized by the fallback alone, the surplus would go last. The slot is
     * freed only once every waiting request has its estimate, so that the order does not depend on
     * how fast the machine scores.
     */
    @Test
    void requestsTheFallbackSizedWhileTheEstimatorWasBehindArePlacedByItsEstimateOnceItCatchesUp() throws Exception {
        HeldEstimator<Prompt> gated = HeldEstimator.<Prompt>held("gated", 7).markedExpensive();
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start(gated, "--backend", backend.url(), "--estimator-fallback", "baseline",
                        "--starvation-timeout", "off")) {
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            // The estimator is held from its warm-up prompts on. The busy request is sent at once and held.
            assertTrue(gated.entered.await(30, TimeUnit.SECONDS));
            responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("busy [held]", 16, false)));
            Await.until("the busy request sent", () -> triage.chatQueue().busySlots() == 1);
            int surplus = 3;
            for (int i = 0; i < 32 + surplus; i++) {
                String name = String.format(Locale.ROOT, "prompt-%02d", i);
                responses.add(triage.client().sendAsync(HttpRequest.newBuilder(triage.uri("/v1/chat/completions"))
                        .header("content-type", "application/json").header("x-request-id", name)
                        .POST(HttpRequest.BodyPublishers.ofString(ChatRequests.uncapped(name))).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            // One batch waits for the estimator (the busy request's prompt, scored with time to spare, may
            // hold a place in it); whichever requests come after it are queued at once.
            Await.until("the surplus queued", () -> triage.chatQueue().waitingCount() >= surplus);
            List<String> queuedFirst = triage.chatQueue().snapshot().get(10, TimeUnit.SECONDS).waiting().stream()
                    .map(QueueSnapshot.Waiting::id).toList();
            gated.release.countDown();
            RunningTriage.awaitQueue(triage.chatQueue(), "every waiting request sized by the estimator",
                    waiting -> waiting.size() == 32 + surplus && waiting.stream().allMatch(w -> w.expectedTokens() == 7));
            backend.releaseHeld();
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                assertEquals(200, response.get(2, TimeUnit.MINUTES).statusCode());
            }
            List<String> finished = backend.finished();
            assertEquals("busy [held]", finished.get(0));
            assertEquals(Set.copyOf(queuedFirst), Set.copyOf(finished.subList(1, 1 + queuedFirst.size())),
                    "the surplus, re-sized, ahead of the batch: " + finished);
            double saturated = fallbacks(triage, "saturated");
            assertTrue(saturated == surplus || saturated == surplus + 1,
                    "the surplus, and a re-sized request not counted again: " + saturated);
        }
    }

    @TempDir
    Path dir;

    @Test
    void aRankerModelThatFailsToLoadInTheBackgroundLeavesTheFallbackUntilAReloadSucceeds() throws Exception {
        Path model = ShippedRankerFiles.copyInto(dir);
        Files.write(model, new byte[] {1, 2, 3});
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--estimator", "ranker", "--model",
                        model.toString());
                LexicalEstimator fallback = LexicalEstimator.loadDefault()) {
            triage.awaitEstimator("unavailable");
            String prompt = PROMPTS.get(2);
            assertEquals(Math.round(fallback.estimate(new Prompt(prompt)).expectedTokens()), recordedEstimate(triage, prompt));
            assertTrue(fallbacks(triage, "unavailable") >= 1);

            ShippedRankerFiles.writeHead(model);
            HttpResponse<String> reloaded = triage.client().send(HttpRequest.newBuilder(triage.uri("/triage/reload"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reloaded.statusCode(), reloaded.body());
            triage.awaitEstimator("ready");
            try (RankerEstimator ranker = RankerEstimator.load(model)) {
                assertEquals(Math.round(ranker.estimate(new Prompt(prompt)).expectedTokens()), recordedEstimate(triage, prompt));
            }
        }
    }
}
