package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.features.Prompt;
import dev.triage.features.PromptFeatures;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.data.FeedbackAnswers;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptSource;
import dev.triage.proxy.api.Json;
import dev.triage.proxy.metrics.Outcome;
import dev.triage.proxy.metrics.RequestRecord;
import dev.triage.proxy.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeedbackLogTest {

    private static final String SECRET = "Draft a reply to my landlord about the broken boiler in flat 12";

    @TempDir
    Path directory;

    @Test
    void aWholeAnswerIsWrittenWithItsFeaturesAndLengthsButNotThePrompt() throws IOException {
        Path file = directory.resolve("logs/feedback.jsonl");
        try (FeedbackLog log = FeedbackLog.open(file, false, FeedbackLog.ROTATE_BYTES)) {
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 321));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size());
        assertFalse(lines.get(0).contains("landlord"), "no prompt text unless asked for: " + lines.get(0));
        JsonNode line = Json.MAPPER.readTree(lines.get(0));
        assertEquals(FeedbackLog.FORMAT, line.get("format").asText());
        assertEquals(321, line.get("actualTokens").asLong());
        assertEquals(80, line.get("estimatorTokens").asDouble(), 1e-9);
        assertEquals(2.0, line.get("serviceSeconds").asDouble(), 1e-9, "the time in the slot, not until the client had the last byte");
        long fingerprint = PromptFingerprint.of(new Prompt(SECRET)).getAsLong();
        assertEquals(fingerprint, Long.parseUnsignedLong(line.get("fingerprint").asText(), 16));
        float[] features = RequestFeatures.of(new Prompt(SECRET));
        assertEquals(RequestFeatures.SCHEMA_VERSION, line.get("features").get("schema").asText());
        for (int i = 0; i < features.length; i++) {
            assertEquals(features[i], line.get("features").get(RequestFeatures.NAMES.get(i)).floatValue(), 1e-6);
        }
    }

    @Test
    void thePromptIsWrittenOnlyWhenAskedFor() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        try (FeedbackLog log = FeedbackLog.open(file, true, FeedbackLog.ROTATE_BYTES)) {
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 321));
        }
        assertEquals(SECRET, Json.MAPPER.readTree(Files.readString(file)).get("prompt").asText());
    }

    @Test
    void trainingReadsWhatTheLogWrites() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        Prompt conversation = new Prompt(SECRET, 3, 120, 900);
        try (FeedbackLog log = FeedbackLog.open(file, true, FeedbackLog.ROTATE_BYTES)) {
            RequestRecord record = record(SECRET, Outcome.OK, OptionalInt.empty(), 321);
            record.prompt(PromptFeatures.of(conversation), PromptFingerprint.of(conversation));
            log.finished(record);
        }
        List<PromptAnswer> answers = FeedbackAnswers.load(file);
        assertEquals(List.of(new PromptAnswer(conversation, 321, PromptSource.FEEDBACK, "feedback:chat")), answers);
    }

    /** A kill in the middle of a write leaves half a line: the next start drops it, so training still reads the file. */
    @Test
    void aLineCutShortByAKillIsDroppedWhenTheLogOpensAgain() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        try (FeedbackLog log = FeedbackLog.open(file, true, FeedbackLog.ROTATE_BYTES)) {
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 321));
        }
        String whole = Files.readString(file);
        Files.writeString(file, whole + whole.substring(0, whole.length() / 2), StandardOpenOption.TRUNCATE_EXISTING);
        try (FeedbackLog log = FeedbackLog.open(file, true, FeedbackLog.ROTATE_BYTES)) {
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 123));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size(), "the whole lines, without the half one between them");
        assertEquals(List.of(321, 123), FeedbackAnswers.load(file).stream().map(PromptAnswer::answerTokens).toList());
    }

    /** Emptied from outside while open (after a training, or by a copy-and-truncate rotation): the next line starts the file. */
    @Test
    void aLogEmptiedWhileOpenGoesOnAtItsNewEnd() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        try (FeedbackLog log = FeedbackLog.open(file, true, FeedbackLog.ROTATE_BYTES)) {
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 321));
            Await.until("the first line written", () -> fileSize(file) > 0);
            Files.write(file, new byte[0], StandardOpenOption.TRUNCATE_EXISTING);
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 123));
        }
        assertEquals(List.of(123), FeedbackAnswers.load(file).stream().map(PromptAnswer::answerTokens).toList(),
                "one line, not one after a hole of zeros");
    }

    private static long fileSize(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void answersCutShortOrAtTheirLimitAreNotWritten() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        try (FeedbackLog log = FeedbackLog.open(file, false, FeedbackLog.ROTATE_BYTES)) {
            for (Outcome outcome : List.of(Outcome.CLIENT_GONE, Outcome.TIMEOUT, Outcome.UPSTREAM_ERROR)) {
                log.finished(record(SECRET, outcome, OptionalInt.empty(), 321));
            }
            log.finished(record(SECRET, Outcome.OK, OptionalInt.of(321), 321));
            log.finished(record(SECRET, Outcome.OK, OptionalInt.of(400), 321));
        }
        assertEquals(1, Files.readAllLines(file).size(), "only the answer that ended below its limit");
    }

    @Test
    void aFullFileIsRotatedSoTheLogStaysBounded() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        long limit = 4_096;
        try (FeedbackLog log = FeedbackLog.open(file, false, limit)) {
            for (int i = 0; i < 100; i++) {
                log.finished(record(SECRET + " " + i, Outcome.OK, OptionalInt.empty(), 100 + i));
            }
        }
        Path previous = directory.resolve("feedback.jsonl.1");
        assertTrue(Files.exists(previous));
        assertTrue(Files.size(file) <= limit && Files.size(previous) <= limit, Files.size(file) + " and " + Files.size(previous));
        String last = Files.readAllLines(file).get(Files.readAllLines(file).size() - 1);
        assertEquals(199, Json.MAPPER.readTree(last).get("actualTokens").asLong(), "the newest line is kept");
    }

    @Test
    void promptsBeyondWhatMayWaitInMemoryAreDroppedAndCounted() throws IOException {
        Path file = directory.resolve("feedback.jsonl");
        try (FeedbackLog log = FeedbackLog.open(file, true, FeedbackLog.ROTATE_BYTES)) {
            log.finished(record("a".repeat((int) FeedbackLog.WAITING_PROMPT_CHARS + 1), Outcome.OK, OptionalInt.empty(), 321));
            log.finished(record(SECRET, Outcome.OK, OptionalInt.empty(), 321));
            assertEquals(1, log.dropped());
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size());
        assertEquals(SECRET, Json.MAPPER.readTree(lines.get(0)).get("prompt").asText(), "the next prompt still fits");
    }

    @Test
    void aFileThatCannotBeOpenedIsAnError() throws IOException {
        Path notAFile = Files.createDirectory(directory.resolve("a-directory"));
        assertThrows(IOException.class, () -> FeedbackLog.open(notAFile, false, FeedbackLog.ROTATE_BYTES));
    }

    private static RequestRecord record(String prompt, Outcome outcome, OptionalInt cap, long actual) {
        RequestRecord record = new RequestRecord("r", "/v1/chat/completions", "chat", "chat", 0);
        Prompt read = new Prompt(prompt);
        record.sized(Estimate.ofTokens(80), 0, 80, false, 20, cap);
        record.prompt(PromptFeatures.of(read), PromptFingerprint.of(read));
        record.dispatched(500_000_000, false, 1);
        record.ran(2_000_000_000L);
        record.responded(200);
        record.actualTokens(OptionalLong.of(actual));
        record.end(outcome, null, 3_000_000_000L);
        return record;
    }
}
