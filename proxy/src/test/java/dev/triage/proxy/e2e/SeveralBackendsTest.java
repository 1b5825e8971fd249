package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.scheduler.BackendQueue;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Several backends behind one Triage, on real sockets: requests go to the backends serving their
 * model, wait in the queue those backends share and are bound to the fastest free one; a backend
 * that dies or fails its probe is ejected, and a request it failed before a byte reached it is served
 * by another.
 */
class SeveralBackendsTest {

    private static String chat(String model, String prompt, int maxTokens, boolean stream) {
        return ChatRequests.chat(prompt, maxTokens, stream).replace("\"model\":\"fake\"", "\"model\":\"" + model + "\"");
    }

    private static void assertNoSlotHeld(RunningTriage triage) {
        for (BackendQueue queue : triage.triage().queues()) {
            Await.until("queue " + queue.name() + "'s slots all free", () -> queue.busySlots() == 0);
            for (int i = 0; i < queue.backends().size(); i++) {
                int index = i;
                Await.until("backend " + queue.backends().get(i).name() + "'s slots all free", () -> queue.busySlots(index) == 0);
            }
        }
    }

    @Test
    void eachRequestGoesToTheBackendsServingItsModelAndAnUnservedModelIsA404() throws Exception {
        try (FakeOpenAiBackend llama = FakeOpenAiBackend.start(1, Duration.ZERO);
                FakeOpenAiBackend others = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", llama.url() + ",models=llama3,name=llama",
                        "--backend", others.url() + ",models=qwen|mistral,name=others")) {
            assertEquals(200, triage.post("/v1/chat/completions", chat("llama3", "for llama", 4, false)).statusCode());
            assertEquals(200, triage.post("/v1/chat/completions", chat("mistral", "for mistral", 4, true)).statusCode());
            assertEquals(List.of("for llama"), llama.started());
            assertEquals(List.of("for mistral"), others.started());
            // Ollama's spellings of one model: any case, and no tag for :latest.
            assertEquals(200, triage.post("/api/chat", chat("Llama3:latest", "for llama again", 4, false)).statusCode());
            assertEquals(List.of("for llama", "for llama again"), llama.started());

            HttpResponse<String> unserved = triage.post("/v1/chat/completions", chat("gpt-9", "for nobody", 4, false));
            assertEquals(404, unserved.statusCode(), unserved.body());
            assertTrue(unserved.body().contains("\"code\":\"model_not_found\""), unserved.body());
            assertTrue(unserved.body().contains("no backend serves the model 'gpt-9'"), unserved.body());
            HttpResponse<String> unnamed = triage.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertEquals(404, unnamed.statusCode(), unnamed.body());
            assertEquals(3, llama.started().size() + others.started().size(), "neither was sent anywhere");

            String metrics = triage.metricsAfter(3);
            assertEquals(2, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("backend", "llama")), metrics);
            assertEquals(1, PrometheusText.sum(metrics, "triage_request_seconds_count", Map.of("backend", "others")), metrics);
            assertNoSlotHeld(triage);
        }
    }

    /** One backend, or several serving the same models, that names them: the list is honoured too. */
    @Test
    void aModelOutsideTheOneGroupsListIsA404() throws Exception {
        try (FakeOpenAiBackend llama = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", llama.url() + ",models=llama3,name=llama")) {
            HttpResponse<String> unserved = triage.post("/v1/chat/completions", chat("gpt-9", "for nobody", 4, false));
            assertEquals(404, unserved.statusCode(), unserved.body());
            assertTrue(unserved.body().contains("no backend serves the model 'gpt-9'"), unserved.body());
            assertEquals(200, triage.post("/v1/chat/completions", chat("llama3", "for llama", 4, false)).statusCode());
            assertEquals(200, triage.post("/completion", "{\"prompt\":\"unnamed\",\"n_predict\":4}").statusCode(),
                    "a request that names no model goes to the one group, as llama-server serves it");
            assertEquals(List.of("for llama", "unnamed"), llama.started());
            assertNoSlotHeld(triage);
        }
    }

    @Test
    void theFasterOfTwoBackendsTakesMoreOfABurst() throws Exception {
        try (FakeOpenAiBackend fast = FakeOpenAiBackend.start(1, Duration.ofMillis(2));
                FakeOpenAiBackend slow = FakeOpenAiBackend.start(1, Duration.ofMillis(25));
                RunningTriage triage = RunningTriage.start("--backend", fast.url() + ",name=fast", "--backend", slow.url() + ",name=slow")) {
            List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                burst.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("job " + i, 20, false)));
            }
            for (CompletableFuture<HttpResponse<String>> response : burst) {
                assertEquals(200, response.join().statusCode());
            }
            assertEquals(16, fast.finished().size() + slow.finished().size());
            assertFalse(slow.finished().isEmpty(), "the slow one served too: " + slow.finished());
            assertTrue(fast.finished().size() > 2 * slow.finished().size(),
                    "fast " + fast.finished().size() + ", slow " + slow.finished().size());

            String metrics = triage.metricsAfter(16);
            assertEquals(1, PrometheusText.sum(metrics, "triage_backend_slots", Map.of("backend", "fast")), metrics);
            assertNoSlotHeld(triage);
        }
    }

    @Test
    void aBackendKilledMidRunLosesOnlyTheRequestItWasAnswering() throws Exception {
        FakeOpenAiBackend doomed = FakeOpenAiBackend.start(1, Duration.ofMillis(10));
        try (FakeOpenAiBackend survivor = FakeOpenAiBackend.start(1, Duration.ofMillis(10));
                RunningTriage triage = RunningTriage.start("--backend", survivor.url() + ",name=survivor",
                        "--backend", doomed.url() + ",name=doomed", "--probe-interval", "10m")) {
            // The survivor is kept busy, so that the burst runs at the doomed backend and some of it still waits
            // there when it dies: the next one bound to it finds it gone.
            CompletableFuture<HttpResponse<String>> held =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("held [held]", 1, false));
            Await.until("the survivor runs the held request", () -> survivor.started().size() == 1);
            List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                burst.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("job " + i, 10, true)));
            }
            Await.until("the doomed backend done with one and answering another",
                    () -> doomed.finished().size() >= 1 && doomed.started().size() > doomed.finished().size());
            doomed.close();
            survivor.releaseHeld();
            assertEquals(200, held.join().statusCode());

            int served = 0;
            int broken = 0;
            for (CompletableFuture<HttpResponse<String>> response : burst) {
                try {
                    HttpResponse<String> answer = response.join();
                    if (answer.statusCode() == 502) {
                        // The doomed backend had taken it, and closed before its answer's first byte.
                        assertTrue(answer.body().contains("\"code\":\"backend_error\""), answer.body());
                        broken++;
                    } else {
                        assertEquals(200, answer.statusCode(), answer.body());
                        if (answer.body().contains("data: [DONE]")) {
                            served++;
                        } else {
                            broken++;
                        }
                    }
                } catch (CompletionException e) {
                    broken++; // its stream had started, and was cut off
                }
            }
            assertTrue(broken <= 1, "only the one the doomed backend was answering is lost: " + broken);
            assertEquals(12, served + broken);
            assertEquals(served + 1, survivor.finished().size() + doomed.finished().size(), "every other one was served");
            BackendQueue queue = triage.chatQueue();
            assertFalse(queue.inService(1), "ejected when it refused a connection, long before its next probe");
            assertTrue(queue.inService(0));
            assertNoSlotHeld(triage);
        }
    }

    @Test
    void aRequestSentBeforeItWasSizedThatWaitsForAnotherBackendCountsItsWaitFromThen() throws Exception {
        FakeOpenAiBackend first = FakeOpenAiBackend.start(1, Duration.ZERO);
        FakeOpenAiBackend second = FakeOpenAiBackend.start(1, Duration.ZERO);
        try (first; second; RunningTriage triage = RunningTriage.start("--backend", first.url() + ",name=first",
                "--backend", second.url() + ",name=second", "--probe-interval", "10m", "--max-queue-wait", "300ms")) {
            CompletableFuture<HttpResponse<String>> held =
                    triage.postAsync("/v1/chat/completions", ChatRequests.chat("held [held]", 1, false));
            Await.until("one backend runs the held request", () -> first.started().size() + second.started().size() == 1);
            (first.started().isEmpty() ? first : second).close();

            // The closed backend's slot looks free: the request is sent there before it is sized, refused, and waits
            // behind the held one until --max-queue-wait.
            long sent = System.nanoTime();
            HttpResponse<String> late = triage.post("/v1/chat/completions", ChatRequests.chat("late", 3, false));
            double elapsedSeconds = (System.nanoTime() - sent) / 1e9;
            assertEquals(504, late.statusCode(), late.body());
            double waited = PrometheusText.sum(triage.metricsAfter(1), "triage_queue_wait_seconds_sum", Map.of());
            assertTrue(waited >= 0.2 && waited <= elapsedSeconds, "waited " + waited + " s of the " + elapsedSeconds + " s it took");

            first.releaseHeld();
            second.releaseHeld();
            assertEquals(200, held.join().statusCode());
            assertNoSlotHeld(triage);
        }
    }

    @Test
    void aBackendWhoseProbeFailsIsEjectedAndReadmittedWhenItPasses() throws Exception {
        try (FakeOpenAiBackend steady = FakeOpenAiBackend.start(1, Duration.ofMillis(5));
                FakeOpenAiBackend flaky = FakeOpenAiBackend.start(1, Duration.ofMillis(5));
                RunningTriage triage = RunningTriage.start("--backend", steady.url() + ",name=steady",
                        "--backend", flaky.url() + ",name=flaky", "--probe-interval", "50ms")) {
            BackendQueue queue = triage.chatQueue();
            flaky.healthy(false);
            Await.until("the flaky backend ejected", () -> !queue.inService(1));
            assertEquals(0, PrometheusText.sum(triage.get("/metrics").body(), "triage_backend_in_service", Map.of("backend", "flaky")));
            assertEquals(200, triage.get("/readyz").statusCode(), "ready: every model has a backend up");
            List<CompletableFuture<HttpResponse<String>>> whileOut = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                whileOut.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("while out " + i, 10, false)));
            }
            whileOut.forEach(response -> assertEquals(200, response.join().statusCode()));
            assertEquals(List.of(), flaky.started(), "nothing bound to an ejected backend");

            flaky.healthy(true);
            Await.until("the flaky backend readmitted", () -> queue.inService(1));
            List<CompletableFuture<HttpResponse<String>>> whileBack = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                whileBack.add(triage.postAsync("/v1/chat/completions", ChatRequests.chat("while back " + i, 10, false)));
            }
            whileBack.forEach(response -> assertEquals(200, response.join().statusCode()));
            assertFalse(flaky.started().isEmpty(), "bound to again once back");

            steady.healthy(false);
            flaky.healthy(false);
            Await.until("not ready with no backend up", () -> {
                try {
                    return triage.get("/readyz").statusCode() == 503;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(queue.inService(0) || queue.inService(1), "the last backend in service stays");
            assertNoSlotHeld(triage);
        }
    }

    /** The first backend out of service: the models are still listed, by the one in service. */
    @Test
    void unscheduledRequestsPassThroughToABackendInService() throws Exception {
        try (FakeOpenAiBackend first = FakeOpenAiBackend.start(1, Duration.ZERO);
                FakeOpenAiBackend second = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", first.url() + ",name=first",
                        "--backend", second.url() + ",name=second", "--probe-interval", "50ms")) {
            assertEquals(200, triage.get("/v1/models").statusCode());
            first.healthy(false); // its /v1/models answers 503 from now on
            Await.until("the first backend ejected", () -> !triage.chatQueue().inService(0));
            assertEquals(200, triage.get("/v1/models").statusCode(), "listed by the second");
            first.healthy(true);
            Await.until("the first backend readmitted", () -> triage.chatQueue().inService(0));
            assertEquals(200, triage.get("/v1/models").statusCode());
        }
    }
}
