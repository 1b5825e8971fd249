package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.HeldEstimator;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    private static long estimateHeader(HttpResponse<String> response) {
        assertEquals(200, response.statusCode(), response.body());
        return Long.parseLong(response.headers().firstValue("x-triage-estimate-tokens").orElseThrow());
    }

    private static double fallbacks(RunningTriage triage, String reason) throws Exception {
        return PrometheusText.sum(triage.get("/metrics").body(), "triage_estimator_fallbacks_total",
                reason == null ? Map.of() : Map.of("reason", reason));
    }

    private static void awaitEstimatorState(RunningTriage triage, String state) {
        Await.until("/readyz reports the estimator " + state, Duration.ofMinutes(2), () -> {
            try {
                HttpResponse<String> ready = triage.get("/readyz");
                return ready.statusCode() == 200 && ready.body().contains("\"estimator_state\":\"" + state + "\"");
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void theConfiguredRankerSizesEveryRequestOnceLoadedAndIsNeverSilentlyReplaced() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--estimator", "ranker");
                RankerEstimator ranker = RankerEstimator.loadDefault();
                ClassifierEstimator classifier = ClassifierEstimator.loadDefault()) {
            awaitEstimatorState(triage, "ready");
            double before = fallbacks(triage, null);
            int differ = 0;
            for (String prompt : PROMPTS) {
                long expected = Math.round(ranker.estimate(new Prompt(prompt)).expectedTokens());
                assertEquals(expected, estimateHeader(triage.post("/v1/chat/completions", ChatRequests.uncapped(prompt))), prompt);
                differ += expected != Math.round(classifier.estimate(new Prompt(prompt)).expectedTokens()) ? 1 : 0;
            }
            assertTrue(differ >= 4, "the prompts tell the ranker from its fallback: " + differ + " of " + PROMPTS.size());
            assertEquals(before, fallbacks(triage, null), "not one request sized by the fallback once the ranker is ready");
        }
    }

    @Test
    void aSaturatedEstimatorHandsTheSurplusToTheFallbackAndNoRequestIsRefused() throws Exception {
        HeldEstimator<Prompt> gated = HeldEstimator.<Prompt>held("gated", 7).markedExpensive();
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start(gated, "--backend", backend.url(), "--estimator-fallback", "baseline")) {
            List<String> prompts = new ArrayList<>();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            prompts.add("first");
            responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.uncapped("first")));
            assertTrue(gated.entered.await(30, TimeUnit.SECONDS));
            // One batch of 32 may wait for an estimator not yet timed; the rest cannot wait.
            int surplus = 8;
            for (int i = 0; i < 32 + surplus; i++) {
                prompts.add("prompt " + i);
                responses.add(triage.postAsync("/v1/chat/completions", ChatRequests.uncapped(prompts.get(i + 1))));
            }
            // Event loops take prompts side by side, so a few more than one batch may slip in to wait.
            int slipped = 3;
            Await.until("the surplus is served while the estimator is held", () -> {
                try {
                    double saturated = fallbacks(triage, "saturated");
                    return saturated >= surplus - slipped && responses.stream().filter(CompletableFuture::isDone).count() == saturated;
                } catch (Exception e) {
                    return false;
                }
            });
            BaselineEstimator baseline = new BaselineEstimator();
            for (int i = 0; i < responses.size(); i++) {
                if (responses.get(i).isDone()) {
                    assertEquals(Math.round(baseline.estimate(new Prompt(prompts.get(i))).expectedTokens()),
                            estimateHeader(responses.get(i).join()), "sized by the fallback: " + prompts.get(i));
                }
            }
            gated.release.countDown();
            int byConfigured = 0;
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                byConfigured += estimateHeader(response.get(2, TimeUnit.MINUTES)) == 7 ? 1 : 0;
            }
            double saturated = fallbacks(triage, "saturated");
            assertEquals(responses.size(), byConfigured + saturated, "every request sized, by one or the other; none refused");
            assertTrue(saturated >= surplus - slipped && saturated <= surplus, "the surplus beyond one batch: " + saturated);
            assertEquals(0, PrometheusText.sum(triage.get("/metrics").body(), "triage_rejected_total", Map.of()));
        }
    }

    @TempDir
    Path dir;

    @Test
    void aRankerModelThatFailsToLoadInTheBackgroundLeavesTheFallbackUntilAReloadSucceeds() throws Exception {
        Path model = dir.resolve("ranker.onnx");
        Files.write(model, new byte[] {1, 2, 3});
        copyResource("/models/ranker.json", ModelFiles.metadataPath(model));
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--estimator", "ranker", "--model",
                        model.toString());
                ClassifierEstimator classifier = ClassifierEstimator.loadDefault()) {
            awaitEstimatorState(triage, "unavailable");
            String prompt = PROMPTS.get(2);
            assertEquals(Math.round(classifier.estimate(new Prompt(prompt)).expectedTokens()),
                    estimateHeader(triage.post("/v1/chat/completions", ChatRequests.uncapped(prompt))));
            assertTrue(fallbacks(triage, "unavailable") >= 1);

            try (InputStream in = RankerEstimator.class.getResourceAsStream(RankerEstimator.DEFAULT_MODEL_RESOURCE)) {
                Files.copy(in, model, StandardCopyOption.REPLACE_EXISTING);
            }
            HttpResponse<String> reloaded = triage.client().send(HttpRequest.newBuilder(triage.uri("/triage/reload"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reloaded.statusCode(), reloaded.body());
            awaitEstimatorState(triage, "ready");
            try (RankerEstimator ranker = RankerEstimator.load(model)) {
                assertEquals(Math.round(ranker.estimate(new Prompt(prompt)).expectedTokens()),
                        estimateHeader(triage.post("/v1/chat/completions", ChatRequests.uncapped(prompt))));
            }
        }
    }

    private static void copyResource(String resource, Path to) throws IOException {
        try (InputStream in = RankerEstimator.class.getResourceAsStream(resource)) {
            Files.copy(in, to);
        }
    }
}
