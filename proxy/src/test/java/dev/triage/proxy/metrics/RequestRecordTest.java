package dev.triage.proxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.triage.model.Estimate;
import dev.triage.model.LengthClass;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RequestRecordTest {

    @Test
    void theClassIsTheBucketOfTheEstimateNotTheMostLikelyClass() {
        RequestRecord record = new RequestRecord("id", "/v1/chat/completions", "chat", "chat", 0);
        assertEquals("unknown", record.classLabel());
        // Mostly short, but a long tail: the expectation lands in the long bucket, and that is what was scheduled.
        record.sized(new Estimate(950, LengthClass.SHORT, 0.4), 0, 950, false, 40, OptionalInt.empty());
        assertEquals("long", record.classLabel());
        record.sized(new Estimate(199, LengthClass.LONG, 0.6), 0, 199, false, 40, OptionalInt.empty());
        assertEquals("short", record.classLabel());
        record.sized(new Estimate(200, LengthClass.SHORT, 0.1), 0, 200, false, 40, OptionalInt.empty());
        assertEquals("medium", record.classLabel());
    }

    /** Only an answer that reached its client whole teaches its length: one cut short would teach that it was short. */
    @Test
    void onlyAWholeAnswerHasALengthToLearnFrom() {
        for (Outcome outcome : Outcome.values()) {
            RequestRecord record = new RequestRecord("id", "/v1/chat/completions", "chat", "chat", 0);
            record.actualTokens(OptionalLong.of(120));
            record.end(outcome, null, 1);
            assertEquals(outcome == Outcome.OK ? OptionalLong.of(120) : OptionalLong.empty(), record.wholeAnswerTokens(), outcome.label());
        }
    }
}
