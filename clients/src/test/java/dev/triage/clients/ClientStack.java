package dev.triage.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.bench.replay.ReplayBackend;
import dev.triage.bench.replay.ReplayBackendSettings;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import dev.triage.proxy.testing.Await;
import dev.triage.proxy.testing.PrometheusText;
import dev.triage.proxy.testing.RunningTriage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a client talks to in these tests: Triage in front of a serial replay backend, both on loopback.
 * The backend answers every prompt with {@code max_tokens} tokens (16 without), one word per token,
 * a millisecond each, so that a request with a large {@code max_tokens} holds the only slot until its
 * client lets go.
 *
 * <pre>{@code
 * try (ClientStack stack = ClientStack.start("--max-queue", "1")) {
 *     OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(stack.url() + "/v1").apiKey("unused").build();
 * }
 * }</pre>
 */
final class ClientStack implements AutoCloseable {

    /** A {@code max_tokens} that keeps the slot busy for minutes: long enough for any test to let go first. */
    static final int HOLDING_TOKENS = 200_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ReplayBackend backend;
    private final RunningTriage triage;

    private ClientStack(ReplayBackend backend, RunningTriage triage) {
        this.backend = backend;
        this.triage = triage;
    }

    /** A replay backend and Triage in front of it with these flags added. */
    static ClientStack start(String... triageFlags) throws InterruptedException {
        ReplayBackend backend = ReplayBackend.start(ReplayBackendSettings.builder()
                .slots(1).speed(new ServiceTimeModel(0.005, 0.001)).defaultAnswerTokens(16).build());
        try {
            List<String> flags = new ArrayList<>(List.of("--backend", backend.uri().toString()));
            flags.addAll(List.of(triageFlags));
            return new ClientStack(backend, RunningTriage.start(flags.toArray(String[]::new)));
        } catch (RuntimeException | InterruptedException e) {
            backend.close();
            throw e;
        }
    }

    /** Triage's address, {@code http://127.0.0.1:PORT}: OpenAI clients add {@code /v1}, Ollama's take it as it is. */
    String url() {
        return "http://127.0.0.1:" + triage.port();
    }

    void awaitWaiting(int requests) {
        Await.until(requests + " request(s) waiting in Triage's queue", () -> triage.chatQueue().waitingCount() == requests);
    }

    void awaitSlotFree() {
        Await.until("the backend's slot to be free", () -> triage.chatQueue().busySlots() == 0);
    }

    /** The waiting requests' priorities, in the order Triage will send them. */
    List<Integer> waitingPriorities() throws Exception {
        List<Integer> priorities = new ArrayList<>();
        for (JsonNode waiting : JSON.readTree(triage.get("/triage/queue").body()).path("backends").get(0).path("waiting")) {
            priorities.add(waiting.path("priority").asInt());
        }
        return priorities;
    }

    /**
     * The order in which the backend received a request, from the id of its answer: the replay backend
     * numbers its answers as requests reach it ({@code chatcmpl-7}).
     */
    static long backendOrder(String answerId) {
        return Long.parseLong(answerId.substring(answerId.lastIndexOf('-') + 1));
    }

    /** How many requests Triage has refused for this reason ({@code queue_full}, {@code queue_timeout}, ...). */
    double rejections(String reason) throws Exception {
        return PrometheusText.sum(triage.get("/metrics").body(), "triage_rejected_total", Map.of("reason", reason));
    }

    /**
     * Waits until Triage has counted at least {@code count} refusals for this reason: it counts a
     * request's end in a task after the answer is written, so a client can see the refusal first.
     */
    void awaitRejections(String reason, double count) {
        Await.until(count + " " + reason + " refusal(s) counted", () -> {
            try {
                return rejections(reason) >= count;
            } catch (Exception e) {
                throw new IllegalStateException("Triage's /metrics could not be read", e);
            }
        });
    }

    @Override
    public void close() {
        try {
            triage.close();
        } finally {
            backend.close();
        }
    }
}
