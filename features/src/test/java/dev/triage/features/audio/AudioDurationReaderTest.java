package dev.triage.features.audio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class AudioDurationReaderTest {

    private static AudioDuration read(byte[] bytes) {
        return new AudioDurationReader().read(ByteBuffer.wrap(bytes));
    }

    static Stream<AudioFixtures> fixtures() {
        return AudioFixtures.stream();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void eachFormatIsDetectedFromItsBytesAndMatchesTheReferenceDuration(AudioFixtures fixture) {
        AudioDuration duration = read(fixture.bytes());
        assertEquals(fixture.format(), duration.format());
        assertFalse(duration.estimated(), "read from the container");
        assertEquals(fixture.referenceSeconds(), duration.seconds(), fixture.tolerance(), fixture.source());
    }

    @Test
    void theBufferIsReadWhereItsPositionIsAndNotMoved() {
        byte[] wav = AudioFixtures.named("pcm16-mono-16000.wav").bytes();
        byte[] padded = new byte[wav.length + 100];
        System.arraycopy(wav, 0, padded, 37, wav.length);
        ByteBuffer buffer = ByteBuffer.wrap(padded, 37, wav.length);
        AudioDuration duration = new AudioDurationReader().read(buffer);
        assertEquals(1.2, duration.seconds(), 1e-9);
        assertEquals(37, buffer.position());
        assertEquals(37 + wav.length, buffer.limit());
    }

    @Test
    void zeroBytesAreAnEstimateOfZeroSeconds() {
        AudioDuration duration = read(new byte[0]);
        assertEquals(new AudioDuration(0, AudioFormat.UNKNOWN, true), duration);
    }

    @Test
    void randomBytesFallBackToTheByteSizeRule() {
        byte[] noise = new byte[64_000];
        new Random(4).nextBytes(noise);
        AudioDuration duration = read(noise);
        assertEquals(new AudioDuration(4.0, AudioFormat.UNKNOWN, true), duration);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void aFileCutInsideItsHeaderFallsBackToTheByteSizeRule(AudioFixtures fixture) {
        byte[] head = Arrays.copyOf(fixture.bytes(), 20);
        AudioDuration duration = read(head);
        assertTrue(duration.estimated(), duration.toString());
        assertEquals(20 / AudioDuration.FALLBACK_BYTES_PER_SECOND, duration.seconds(), 1e-9);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void aFileCutInHalfNeverReadsLongerThanTheWhole(AudioFixtures fixture) {
        byte[] whole = fixture.bytes();
        AudioDuration duration = read(Arrays.copyOf(whole, whole.length / 2));
        assertEquals(fixture.format(), duration.format());
        if (!duration.estimated()) {
            assertTrue(duration.seconds() <= fixture.referenceSeconds() + fixture.tolerance(), duration.toString());
        }
    }

    @Test
    void truncatedPcmAndOggCountOnlyTheAudioPresent() {
        AudioFixtures wav = AudioFixtures.named("pcm16-mono-8000-list-chunk.wav");
        byte[] bytes = wav.bytes();
        int dataStart = 0x4E; // after the LIST chunk, as the fixture script's ffmpeg writes it
        AudioDuration half = read(Arrays.copyOf(bytes, dataStart + 8000 * 2));
        assertEquals(1.0, half.seconds(), 1e-9);
        assertFalse(half.estimated());

        AudioFixtures opus = AudioFixtures.named("speech-opus.opus");
        AudioDuration opusHalf = read(Arrays.copyOf(opus.bytes(), opus.bytes().length / 2));
        assertFalse(opusHalf.estimated());
        // Up to the last complete page: opusenc closes a page about once a second.
        assertTrue(opusHalf.seconds() > 0 && opusHalf.seconds() < 0.75 * opus.referenceSeconds(), opusHalf.toString());
    }

    @Test
    void thirtyMegabytesOfWavAndMp3AreReadWhole() {
        int dataBytes = 30 * 1024 * 1024;
        ByteBuffer wav = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        wav.put("RIFF".getBytes()).putInt(36 + dataBytes).put("WAVEfmt ".getBytes()).putInt(16)
                .putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000).putShort((short) 2).putShort((short) 16)
                .put("data".getBytes()).putInt(dataBytes);
        assertEquals(new AudioDuration(dataBytes / 32_000.0, AudioFormat.WAV, false), read(wav.array()));

        AudioFixtures cbr = AudioFixtures.named("cbr.mp3");
        byte[] one = cbr.bytes();
        int copies = dataBytes / one.length + 1;
        byte[] many = new byte[one.length * copies];
        for (int i = 0; i < copies; i++) {
            System.arraycopy(one, 0, many, i * one.length, one.length);
        }
        AudioDuration mp3 = read(many);
        assertFalse(mp3.estimated());
        assertEquals(copies * cbr.referenceSeconds(), mp3.seconds(), copies * cbr.tolerance());
    }

    @Test
    void aWavHeaderWithAZeroRateIsUnreadable() {
        byte[] wav = AudioFixtures.named("pcm16-mono-16000.wav").bytes();
        ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putInt(24, 0);
        AudioDuration duration = read(wav);
        assertEquals(AudioFormat.WAV, duration.format());
        assertTrue(duration.estimated());
    }

    @Test
    void matroskaDurationIsScaledByItsTimecodeScale() {
        // EBML header, then a Segment of unknown size holding Info{TimecodeScale = 1000 ns, Duration = 2.5e6 ticks},
        // and room for 2.5 s of audio.
        ByteBuffer webm = ByteBuffer.allocate(1024);
        webm.putInt(0x1A45DFA3).put((byte) 0x84).put(new byte[] {0x42, (byte) 0x82, (byte) 0x81, 0x77})
                .putInt(0x18538067).put((byte) 0x01).put(new byte[] {-1, -1, -1, -1, -1, -1, -1})
                .putInt(0x1549A966).put((byte) (0x80 | 17))
                .put(new byte[] {0x2A, (byte) 0xD7, (byte) 0xB1}).put((byte) 0x82).putShort((short) 1000)
                .putShort((short) 0x4489).put((byte) 0x88).putDouble(2.5e6);
        assertEquals(new AudioDuration(2.5, AudioFormat.WEBM, false), read(webm.array()));
    }

    @Test
    void anId3TagBeforeFlacStillMeansFlac() {
        byte[] flac = AudioFixtures.named("speech.flac").bytes();
        byte[] tagged = new byte[10 + 20 + flac.length];
        System.arraycopy(new byte[] {'I', 'D', '3', 4, 0, 0, 0, 0, 0, 20}, 0, tagged, 0, 10);
        System.arraycopy(flac, 0, tagged, 30, flac.length);
        assertEquals(AudioFormat.FLAC, AudioFormat.detect(ByteBuffer.wrap(tagged)));
    }
}
