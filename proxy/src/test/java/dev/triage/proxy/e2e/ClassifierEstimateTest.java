package dev.triage.proxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.ChatRequests;
import dev.triage.proxy.testing.FakeOpenAiBackend;
import dev.triage.proxy.testing.RunningTriage;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The shipped classifier, the default estimator, sizing real requests through the proxy. */
class ClassifierEstimateTest {

    @Test
    void aOneSentenceAnswerIsEstimatedShorterThanADetailedMultiPartEssay() throws Exception {
        try (FakeOpenAiBackend backend = FakeOpenAiBackend.start(1, Duration.ZERO);
                RunningTriage triage = RunningTriage.start("--backend", backend.url())) {
            long brief = estimate(triage, "Summarize the history of jazz in one sentence.");
            long essay = estimate(triage, "Write a detailed, multi-part essay on the history of jazz, covering its origins, "
                    + "its major eras, its key musicians, and its influence on other genres.");
            assertTrue(brief < essay, brief + " tokens for one sentence, " + essay + " for the essay");
        }
    }

    private static long estimate(RunningTriage triage, String prompt) throws Exception {
        HttpResponse<String> response = triage.post("/v1/chat/completions", ChatRequests.uncapped(prompt));
        assertEquals(200, response.statusCode());
        return Long.parseLong(response.headers().firstValue("x-triage-estimate-tokens").orElseThrow());
    }
}
