package dev.triage.features.audio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.util.OptionalDouble;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every audio reader on bytes from a coverage-guided fuzzer, seeded with the committed fixtures: each
 * reader either gives a finite duration of at least 0 or says the file is unreadable, whatever its
 * format, and never moves the buffer. The readers are called beneath {@link AudioDurationReader#read},
 * whose catch-all would hide their bugs.
 */
class AudioReadersFuzzTest {

    static Stream<byte[]> fixtures() {
        return AudioFixtures.stream().map(AudioFixtures::bytes);
    }

    @MethodSource("fixtures")
    @FuzzTest
    void everyReaderGivesADurationOrSaysUnreadable(byte[] bytes) {
        ByteBuffer audio = ByteBuffer.wrap(bytes).asReadOnlyBuffer();
        AudioFormat detected = AudioFormat.detect(audio);
        for (AudioFormat format : AudioFormat.values()) {
            try {
                double seconds = AudioDurationReader.seconds(audio, format, Deadline.after(Deadline.PER_FILE));
                assertTrue(seconds >= 0 && Double.isFinite(seconds), format + " reads " + seconds + " s");
            } catch (UnreadableAudioException unreadable) {
                // the answer for a file this reader cannot read
            }
        }
        OptionalDouble speech = SpeechActivity.speechSeconds(audio);
        assertTrue(speech.isEmpty() || speech.getAsDouble() >= 0 && Double.isFinite(speech.getAsDouble()), speech.toString());
        AudioDuration duration = new AudioDurationReader().read(audio);
        assertEquals(detected, duration.format());
        assertEquals(0, audio.position());
        assertEquals(bytes.length, audio.limit());
    }
}
