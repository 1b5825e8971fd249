package dev.triage.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A 16-bit mono PCM WAV file in memory, of a duration known exactly: uploads for the audio
 * benchmarks and the load generator's tests.
 *
 * <pre>{@code
 * byte[] twoSeconds = PcmWav.tone(2.0, 440, 16_000);
 * }</pre>
 */
public final class PcmWav {

    private PcmWav() {}

    public static byte[] of(short[] samples, int sampleRate) {
        int dataBytes = 2 * samples.length;
        ByteBuffer wav = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        wav.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes).put("WAVEfmt ".getBytes(StandardCharsets.US_ASCII))
                .putInt(16).putShort((short) 1).putShort((short) 1).putInt(sampleRate).putInt(2 * sampleRate).putShort((short) 2)
                .putShort((short) 16).put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
        for (short sample : samples) {
            wav.putShort(sample);
        }
        return wav.array();
    }

    /** A sine tone at a quarter of full scale. */
    public static byte[] tone(double seconds, double hertz, int sampleRate) {
        short[] samples = new short[(int) Math.round(seconds * sampleRate)];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = (short) (8192 * Math.sin(2 * Math.PI * hertz * i / sampleRate));
        }
        return of(samples, sampleRate);
    }
}
