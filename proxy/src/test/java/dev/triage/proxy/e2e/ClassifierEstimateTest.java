package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.triage.features.ChatBody;
import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shipped classifier, the default estimator, sizing real requests through the proxy (learning off, so the header is its own). */
class ClassifierEstimateTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BRIEF = "Summarize the history of jazz in one sentence.";
    private static final String ESSAY = "Write a detailed, multi-part essay on the history of jazz, covering its origins, "
            + "its major eras, its key musicians, and its influence on other genres.";

    @Test
    void theEstimateHeaderIsTheClassifiersEstimateOfTheRequestsPrompt() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--online-learning", "false");
                ClassifierEstimator classifier = ClassifierEstimator.loadDefault()) {
            BaselineEstimator baseline = new BaselineEstimator();
            for (String prompt : List.of(BRIEF, ESSAY)) {
                String body = ChatRequests.uncapped(prompt);
                Prompt extracted = ChatBody.prompt(JSON.readTree(body));
                long header = estimateHeader(triage, body);
                assertEquals(Math.round(classifier.estimate(extracted).expectedTokens()), header, prompt);
                assertNotEquals(Math.round(baseline.estimate(extracted).expectedTokens()), header,
                        "the baseline's estimate, not the classifier's: " + prompt);
            }
            long brief = estimateHeader(triage, ChatRequests.uncapped(BRIEF));
            long essay = estimateHeader(triage, ChatRequests.uncapped(ESSAY));
            assertTrue(brief < essay, brief + " tokens for one sentence, " + essay + " for the essay");
        }
    }

    /** On Ollama's own API only options.num_predict caps: Ollama ignores a max_tokens there, so a request must not pass for short by it. */
    @Test
    void onOllamasApiOnlyItsOwnLimitCapsTheEstimate() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url(), "--online-learning", "false");
                ClassifierEstimator classifier = ClassifierEstimator.loadDefault()) {
            String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"" + ESSAY + "\"}]";
            long uncapped = Math.round(classifier.estimate(ChatBody.prompt(JSON.readTree("{" + messages + "}"))).expectedTokens());
            assertTrue(uncapped > 7, uncapped + " tokens for the essay");
            assertEquals(uncapped, estimateHeader(triage, "/api/chat", "{\"model\":\"fake\",\"stream\":false,\"max_tokens\":1," + messages + "}"));
            assertEquals(7, estimateHeader(triage, "/api/chat",
                    "{\"model\":\"fake\",\"stream\":false,\"max_tokens\":1,\"options\":{\"num_predict\":7}," + messages + "}"));
            assertEquals(1, estimateHeader(triage, "/v1/chat/completions", "{\"model\":\"fake\",\"max_tokens\":1," + messages + "}"));
            // A load, which Ollama answers at once, goes as the shortest job there is.
            assertEquals(1, estimateHeader(triage, "/api/chat", "{\"model\":\"fake\",\"stream\":false}"));
        }
    }

    private static long estimateHeader(RunningTriage triage, String body) throws Exception {
        return estimateHeader(triage, "/v1/chat/completions", body);
    }

    private static long estimateHeader(RunningTriage triage, String path, String body) throws Exception {
        HttpResponse<String> response = triage.post(path, body);
        assertEquals(200, response.statusCode());
        return Long.parseLong(response.headers().firstValue("x-triage-estimate-tokens").orElseThrow());
    }
}
