package dev.triage.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.PcmWav;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Speech workloads from a small manifest of generated clips laid out like the shared data's. */
class SpeechWorkloadTest {

    @TempDir
    Path asr;

    @Test
    void theShortestAndLongestClipsOfRunningSpeechBecomeAudioEntries() throws IOException {
        clip("a/one.wav", 1.0);
        clip("a/three.wav", 3.0);
        clip("a/five.wav", 5.0);
        clip("digits/0.wav", 0.3);
        Files.write(asr.resolve("a/headerless.raw"), new byte[32_000]);
        Files.write(asr.resolve("manifest.jsonl"), List.of(
                line("test-speech", "a/three.wav", "THE THIRD <unk> CLIP [laughter]"),
                line("test-speech", "a/one.wav", "The first clip."),
                line("fsdd", "digits/0.wav", "zero"),
                line("test-speech", "a/headerless.raw", "Unreadable, so left out."),
                "{\"source\": \"test-speech\", \"path\": \"a/five.wav\", \"duration_s\": 5.0, \"transcript\": null}",
                line("test-speech", "a/five.wav", "And the fifth, the longest of them.")));

        List<WorkloadEntry> entries = SpeechWorkload.burst(asr, 1, 2);
        assertEquals(List.of("The first clip.", "The third clip", "And the fifth, the longest of them."),
                entries.stream().map(WorkloadEntry::prompt).toList());
        assertEquals(List.of("short", "long", "long"), entries.stream().map(WorkloadEntry::jobClass).toList());
        assertEquals(WhisperTranscripts.englishTokens("The first clip."), entries.get(0).answerTokens());
        assertEquals(asr.resolve("a/one.wav"), entries.get(0).audio().orElseThrow().path());
        assertEquals("test-speech (CC0)", entries.get(0).source());

        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class, () -> SpeechWorkload.burst(asr, 2, 2));
        assertTrue(tooMany.getMessage().contains("has 3 clips of speech"), tooMany.getMessage());
    }

    @Test
    void transcriptsAreCountedAsWhisperWritesThem() {
        assertEquals("Hello world", WhisperTranscripts.asWhisperWrites("HELLO <unk>  WORLD [noise]"));
        assertEquals("Mixed Case stays", WhisperTranscripts.asWhisperWrites("Mixed Case stays"));
        assertEquals(2, WhisperTranscripts.englishTokens("Hello world"));
    }

    private void clip(String path, double seconds) throws IOException {
        Path file = asr.resolve(path);
        Files.createDirectories(file.getParent());
        Files.write(file, PcmWav.tone(seconds, 300, 8000));
    }

    private static String line(String source, String path, String transcript) {
        return "{\"source\": \"" + source + "\", \"path\": \"" + path + "\", \"transcript\": \"" + transcript + "\", \"license\": \"CC0\"}";
    }
}
