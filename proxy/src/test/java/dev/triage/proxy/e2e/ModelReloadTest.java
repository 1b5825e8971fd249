package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.model.training.TinyModels;
import dev.triage.model.training.XGBoostNative;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model file replaced while Triage serves: a good model changes the estimates, a corrupt one
 * leaves the serving model in place, and requests during a swap are all served, each scored by one
 * model or the other. The models are real, trained here in a second on obvious prompts. Learning is
 * off, so that each estimate header is the serving model's own.
 */
class ModelReloadTest {

    private static final String ESSAY = "Write a detailed multi-part essay about the Nile, covering its history, causes, "
            + "consequences and future, with a heading for each part.";

    @TempDir
    static Path dir;
    static Path normal;
    static Path inverted;

    @BeforeAll
    static void trainModels() throws Exception {
        XGBoostNative.assumeAvailable();
        normal = dir.resolve("normal.onnx");
        inverted = dir.resolve("inverted.onnx");
        TinyModels.write(TinyModels.corpus(), normal);
        TinyModels.write(TinyModels.invertedCorpus(), inverted);
    }

    /** Puts a model's two files where Triage reads its model, replacing each file in one step. */
    private static void install(Path model, Path target) throws Exception {
        for (String suffix : new String[] {".json", ".onnx"}) {
            Path from = model.resolveSibling(model.getFileName().toString().replace(".onnx", suffix));
            Path to = target.resolveSibling(target.getFileName().toString().replace(".onnx", suffix));
            Path staging = Files.copy(from, to.resolveSibling(to.getFileName() + ".new"), StandardCopyOption.REPLACE_EXISTING);
            Files.move(staging, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static long estimate(RunningTriage triage) throws Exception {
        HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.uncapped(ESSAY));
        assertEquals(200, response.statusCode(), response.body());
        return Long.parseLong(response.headers().firstValue("x-triage-estimate-tokens").orElseThrow());
    }

    private static HttpResponse<String> reload(RunningTriage triage) throws Exception {
        return triage.client().send(HttpRequest.newBuilder(triage.uri("/triage/reload"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aGoodModelReplacesTheServingOneAndABadOneDoesNot() throws Exception {
        Path serving = dir.resolve("serving-a/model.onnx");
        Files.createDirectories(serving.getParent());
        install(normal, serving);
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--online-learning", "false", "--model", serving.toString())) {
            long before = estimate(triage);
            assertTrue(before > 800, "the essay is long to the normal model: " + before);

            install(inverted, serving);
            assertEquals(before, estimate(triage), "nothing changes until the reload");
            HttpResponse<String> reloaded = reload(triage);
            assertEquals(200, reloaded.statusCode(), reloaded.body());
            long after = estimate(triage);
            assertTrue(after < 200, "the inverted model calls the essay short: " + after);

            Files.write(serving, new byte[] {1, 2, 3, 4});
            HttpResponse<String> refused = reload(triage);
            assertEquals(422, refused.statusCode());
            assertTrue(refused.body().contains("\"code\":\"invalid_model\""), refused.body());
            assertTrue(refused.body().contains(serving.toString()), refused.body());
            assertEquals(after, estimate(triage), "the serving model stays");

            Files.delete(serving);
            assertEquals(422, reload(triage).statusCode());
            assertEquals(after, estimate(triage));
        }
    }

    @Test
    void requestsDuringSwapsAreAllServedByOneModelOrTheOther() throws Exception {
        Path serving = dir.resolve("serving-b/model.onnx");
        Files.createDirectories(serving.getParent());
        install(normal, serving);
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(4, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--online-learning", "false", "--model", serving.toString(),
                        "--max-concurrency", "4")) {
            long normalEstimate = estimate(triage);
            install(inverted, serving);
            assertEquals(200, reload(triage).statusCode());
            long invertedEstimate = estimate(triage);
            List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
            for (int swap = 0; swap < 6; swap++) {
                for (int i = 0; i < 10; i++) {
                    requests.add(triage.postAsync("/v1/chat/completions", ChatRequests.uncapped(ESSAY)));
                }
                install(swap % 2 == 0 ? normal : inverted, serving);
                assertEquals(200, reload(triage).statusCode());
            }
            Set<Long> seen = new HashSet<>();
            for (CompletableFuture<HttpResponse<String>> request : requests) {
                HttpResponse<String> response = request.get(30, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode());
                seen.add(Long.parseLong(response.headers().firstValue("x-triage-estimate-tokens").orElseThrow()));
            }
            assertTrue(Set.of(normalEstimate, invertedEstimate).containsAll(seen), seen + " only from the two models");
        }
    }

    @Test
    void theWatcherReloadsWhenTheFileChanges() throws Exception {
        Path serving = dir.resolve("serving-c/model.onnx");
        Files.createDirectories(serving.getParent());
        install(normal, serving);
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--online-learning", "false", "--model", serving.toString(),
                        "--model-watch", "true")) {
            long before = estimate(triage);
            install(inverted, serving);
            Await.until("the watcher reloads the replaced model", () -> {
                try {
                    return estimate(triage) != before;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    @Test
    void theBaselineHasNothingToReload() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--estimator", "baseline")) {
            assertEquals(409, reload(triage).statusCode());
        }
    }

    @Test
    void aMissingModelStopsStartUpEvenOneThatWouldLoadInTheBackground() throws Exception {
        Path missing = dir.resolve("nowhere/model.onnx");
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO)) {
            for (String estimator : List.of("classifier", "ranker")) {
                RuntimeException stop = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                        () -> RunningTriage.start("--backend", backend.url(), "--estimator", estimator, "--model",
                                missing.toString()).close());
                assertEquals(estimator + " model " + missing + ": no such file: " + missing, stop.getMessage());
            }
        }
    }
}
