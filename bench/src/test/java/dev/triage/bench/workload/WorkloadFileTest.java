package dev.triage.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.PcmWav;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadFileTest {

    @TempDir
    Path dir;

    @Test
    void entriesSurviveAWriteAndARead() throws IOException {
        List<WorkloadEntry> entries = List.of(
                new WorkloadEntry("What is 2 + 2?", 12, "short", "test"),
                new WorkloadEntry("Write an essay about \"queues\",\nwith a newline.", 1500, "long", "test"));
        Path file = dir.resolve("workload.jsonl");
        WorkloadFile.write(file, entries);
        assertEquals(entries, WorkloadFile.read(file));
    }

    @Test
    void classAndSourceAreOptional() throws IOException {
        Path file = write("{\"prompt\": \"hi\", \"answer_tokens\": 950}", "", "{\"prompt\": \"yo\", \"answer_tokens\": 3}");
        List<WorkloadEntry> entries = WorkloadFile.read(file);
        assertEquals(new WorkloadEntry("hi", 950, "long", ""), entries.get(0));
        assertEquals(new WorkloadEntry("yo", 3, "short", ""), entries.get(1));
    }

    @Test
    void audioPathsAreRelativeToTheWorkloadsDirectoryAndSurviveAWriteAndARead() throws IOException {
        Path clip = dir.resolve("clips").resolve("a.wav");
        Files.createDirectories(clip.getParent());
        Files.write(clip, PcmWav.tone(0.5, 440, 8000));
        Path workloads = Files.createDirectories(dir.resolve("workloads"));
        Path file = workloads.resolve("speech.jsonl");
        List<WorkloadEntry> entries = List.of(new WorkloadEntry("A tone.", 3, "short", "test", Optional.of(AudioFile.read(clip))),
                new WorkloadEntry("What is 2 + 2?", 12, "short", "test"));
        WorkloadFile.write(file, entries);
        assertTrue(Files.readString(file).contains("\"audio\":\"../clips/a.wav\""), Files.readString(file));
        assertEquals(entries, WorkloadFile.read(file));

        Path absolute = write("{\"prompt\": \"A tone.\", \"answer_tokens\": 3, \"audio\": \"" + clip + "\"}");
        AudioFile read = WorkloadFile.read(absolute).get(0).audio().orElseThrow();
        assertEquals(clip, read.path());
        assertEquals(AudioFile.sha256(ByteBuffer.wrap(Files.readAllBytes(clip))), read.sha256());
    }

    @Test
    void badLinesAreReportedWithTheFileTheLineAndWhatWasExpected() throws IOException {
        assertError("answer_tokens: -5 (expected: an integer >= 0)", "{\"prompt\": \"a\", \"answer_tokens\": -5}");
        assertError("answer_tokens: 1.5 (expected: an integer >= 0)", "{\"prompt\": \"a\", \"answer_tokens\": 1.5}");
        assertError("prompt: missing (expected: a string)", "{\"answer_tokens\": 5}");
        assertError("unknown field tokens", "{\"prompt\": \"a\", \"tokens\": 5}");
        assertError("not a JSON line", "{\"prompt\": ");
        assertError("class: 7 (expected: a string)", "{\"prompt\": \"a\", \"answer_tokens\": 5, \"class\": 7}");
        assertError("audio: \"missing.wav\" (expected: an audio file, relative to the workload's directory; there is none at "
                + dir.resolve("missing.wav") + ")", "{\"prompt\": \"a\", \"answer_tokens\": 5, \"audio\": \"missing.wav\"}");
        assertError("audio: 7 (expected: a string)", "{\"prompt\": \"a\", \"answer_tokens\": 5, \"audio\": 7}");
    }

    private void assertError(String expected, String badLine) throws IOException {
        Path file = write("{\"prompt\": \"fine\", \"answer_tokens\": 1}", badLine);
        IOException e = assertThrows(IOException.class, () -> WorkloadFile.read(file));
        assertTrue(e.getMessage().startsWith(file + ":2: "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private Path write(String... lines) throws IOException {
        Path file = Files.createTempFile(dir, "workload", ".jsonl");
        Files.write(file, List.of(lines));
        return file;
    }
}
