package dev.triage.bench.workload;

import dev.triage.features.audio.AudioDuration;
import dev.triage.features.audio.AudioDurationReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Builds speech workloads from the shared data's ASR clips: the shortest and the longest clips of
 * running speech with a transcript, each an audio entry whose answer is its transcript as Whisper
 * writes it, counted in Whisper's English tokens ({@link WhisperTranscripts}). Durations are the ones
 * Triage reads from the files; a clip whose duration Triage cannot read (headerless PCM, say) is left
 * out, since Triage would size it by its byte count alone.
 */
public final class SpeechWorkload {

    private SpeechWorkload() {}

    /**
     * {@code shorts} shortest clips (class {@code short}) and {@code longs} longest (class {@code long})
     * of the manifest in {@code asr}, shortest first.
     *
     * @throws IllegalArgumentException when there are fewer usable clips than that
     */
    public static List<WorkloadEntry> burst(Path asr, int shorts, int longs) throws IOException {
        if (shorts < 0 || longs < 0) {
            throw new IllegalArgumentException("short, long: " + shorts + ", " + longs + " (expected: >= 0)");
        }
        AudioDurationReader durations = new AudioDurationReader();
        List<TimedClip> usable = new ArrayList<>();
        for (AsrClip clip : AsrClip.readManifest(asr)) {
            String transcript = WhisperTranscripts.asWhisperWrites(clip.transcript());
            if (transcript.isEmpty() || clip.isWordList()) {
                continue;
            }
            Path file = asr.resolve(clip.path());
            AudioDuration duration = durations.read(ByteBuffer.wrap(Files.readAllBytes(file)));
            if (!duration.estimated()) {
                usable.add(new TimedClip(clip, file, transcript, duration.seconds()));
            }
        }
        if (usable.size() < shorts + longs) {
            throw new IllegalArgumentException(asr + " has " + usable.size() + " clips of speech with a transcript and a readable"
                    + " duration; asked for " + shorts + " short and " + longs + " long");
        }
        usable.sort(Comparator.comparingDouble(TimedClip::seconds));
        List<WorkloadEntry> entries = new ArrayList<>();
        for (TimedClip clip : usable.subList(0, shorts)) {
            entries.add(clip.entry("short"));
        }
        for (TimedClip clip : usable.subList(usable.size() - longs, usable.size())) {
            entries.add(clip.entry("long"));
        }
        return entries;
    }

    private record TimedClip(AsrClip clip, Path file, String transcript, double seconds) {

        WorkloadEntry entry(String jobClass) throws IOException {
            return new WorkloadEntry(transcript, WhisperTranscripts.englishTokens(transcript), jobClass,
                    clip.source() + " (" + clip.license() + ")", Optional.of(AudioFile.read(file)));
        }
    }
}
