package dev.triage.features.audio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.OptionalDouble;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SpeechActivityTest {

    private static final String CLIP = "pcm16-mono-8000-list-chunk.wav";
    private static final int RATE = 8000;

    @Test
    void aRealUtteranceIsMostlySpeech() {
        double speech = SpeechActivity.speechSeconds(ByteBuffer.wrap(AudioFixtures.named(CLIP).bytes())).orElseThrow();
        double duration = AudioFixtures.named(CLIP).referenceSeconds();
        assertTrue(speech > 0.5 * duration && speech <= duration, speech + " s of speech in " + duration + " s");
    }

    @Test
    void silencePaddingAddsNoSpeech() {
        short[] clip = samples(CLIP);
        double alone = speechSeconds(clip);
        short[] padded = pad(clip, 4 * RATE, new short[4 * RATE]);
        double withSilence = speechSeconds(padded);
        assertEquals(alone, withSilence, 0.1, "8 s of silence around the clip");
        assertTrue(withSilence < 0.3 * padded.length / RATE);
    }

    @Test
    void aSteadyNoiseBackgroundIsLearnedAsTheFloor() {
        short[] clip = samples(CLIP);
        double alone = speechSeconds(clip);
        short[] padded = pad(clip, 4 * RATE, new short[4 * RATE]);
        Random random = new Random(7);
        for (int i = 0; i < padded.length; i++) {
            double noise = random.nextGaussian() * 32768 * 0.003; // about -50 dBFS, under the speech too
            padded[i] = (short) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, padded[i] + noise));
        }
        assertEquals(alone, speechSeconds(padded), 0.25, "the clip inside 8 s of -50 dBFS noise");
        short[] noiseAlone = java.util.Arrays.copyOf(padded, 3 * RATE);
        assertTrue(speechSeconds(noiseAlone) < 0.2, "noise alone is not speech");
    }

    @Test
    void compressedAudioGetsNoAnswer() {
        assertEquals(OptionalDouble.empty(), SpeechActivity.speechSeconds(ByteBuffer.wrap(AudioFixtures.named("cbr.mp3").bytes())));
        assertEquals(OptionalDouble.empty(), SpeechActivity.speechSeconds(ByteBuffer.wrap(new byte[0])));
    }

    @Test
    void everyPcmVariantIsMeasured() {
        for (AudioFixtures fixture : AudioFixtures.all()) {
            if (fixture.format() == AudioFormat.WAV) {
                double speech = SpeechActivity.speechSeconds(ByteBuffer.wrap(fixture.bytes())).orElseThrow();
                assertTrue(speech > 0.3 * fixture.referenceSeconds() && speech <= fixture.referenceSeconds() + 0.02,
                        fixture + ": " + speech);
            }
        }
    }

    private static short[] samples(String fixture) {
        ByteBuffer wav = ByteBuffer.wrap(AudioFixtures.named(fixture).bytes()).order(ByteOrder.LITTLE_ENDIAN);
        WavHeader header;
        try {
            header = WavHeader.parse(wav, Deadline.after(Deadline.PER_FILE));
        } catch (UnreadableAudioException e) {
            throw new AssertionError(e);
        }
        assertEquals(RATE, header.sampleRate());
        short[] samples = new short[(int) (header.dataLength() / 2)];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = wav.getShort(header.dataOffset() + 2 * i);
        }
        return samples;
    }

    private static short[] pad(short[] clip, int each, short[] padding) {
        short[] padded = new short[clip.length + 2 * each];
        System.arraycopy(padding, 0, padded, 0, each);
        System.arraycopy(clip, 0, padded, each, clip.length);
        System.arraycopy(padding, 0, padded, each + clip.length, each);
        return padded;
    }

    private static double speechSeconds(short[] samples) {
        ByteBuffer wav = ByteBuffer.allocate(44 + 2 * samples.length).order(ByteOrder.LITTLE_ENDIAN);
        wav.put("RIFF".getBytes()).putInt(36 + 2 * samples.length).put("WAVEfmt ".getBytes()).putInt(16)
                .putShort((short) 1).putShort((short) 1).putInt(RATE).putInt(2 * RATE).putShort((short) 2).putShort((short) 16)
                .put("data".getBytes()).putInt(2 * samples.length);
        for (short sample : samples) {
            wav.putShort(sample);
        }
        return SpeechActivity.speechSeconds(wav.flip()).orElseThrow();
    }
}
