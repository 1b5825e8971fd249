package dev.triage.features.audio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.OptionalDouble;

/**
 * An energy-based voice-activity detector for PCM WAV uploads: how many seconds of a clip hold
 * speech. A clip with long silences costs a Whisper-style server far fewer output tokens than its
 * duration suggests, so scheduling by speech-active seconds ranks it better (the remedy the ASR
 * scheduling paper names for such clips).
 *
 * <p>The rule, per 20 ms frame of the channels' mean power in dBFS: the frame is speech when it is
 * at least {@value #SPEECH_ABOVE_FLOOR_DB} dB above the noise floor and above
 * {@value #ABSOLUTE_GATE_DBFS} dBFS; the {@value #HANGOVER_FRAMES} frames (200 ms) after a speech
 * frame count as speech too, which keeps soft word endings and the short pauses between words. The
 * noise floor starts at the 10th percentile of the clip's frame energies, drops at once to any
 * quieter frame and rises by at most {@value #FLOOR_RISE_DB_PER_FRAME} dB a frame (3 dB/s), so it
 * follows a background that grows louder but not the speech itself. Frames of digital silence (below
 * {@value #DIGITAL_SILENCE_DBFS} dBFS, as in padding an editor inserted) are never speech and leave
 * the floor alone: the floor is the recording's background, which digital silence says nothing about.
 *
 * <p>Only uncompressed audio is measured (8/16/24/32-bit integer and 32-bit float PCM) at
 * {@value #MIN_SAMPLE_RATE} Hz or more; anything else would need a decoder, or is not speech, and gets
 * no answer. The rate floor also bounds the work: a header claiming 1 Hz would otherwise make every
 * byte a frame of its own, and a 25 MB upload cost seconds and hundreds of megabytes. Past a
 * second ({@link Deadline#PER_FILE}) the measurement is abandoned.
 */
public final class SpeechActivity {

    static final double FRAME_SECONDS = 0.020;
    static final double SPEECH_ABOVE_FLOOR_DB = 12;
    static final double ABSOLUTE_GATE_DBFS = -60;
    static final int HANGOVER_FRAMES = 10;
    static final double FLOOR_RISE_DB_PER_FRAME = 0.06;
    static final double DIGITAL_SILENCE_DBFS = -90;
    /** Telephone speech, the lowest rate speech is recorded at. */
    static final int MIN_SAMPLE_RATE = 8_000;
    private static final double SILENCE_DBFS = -120;

    private SpeechActivity() {}

    /**
     * Seconds of speech in the WAV file between {@code audio}'s position and limit, or empty when it is
     * not a PCM WAV file or takes too long to measure. The buffer is not moved.
     */
    public static OptionalDouble speechSeconds(ByteBuffer audio) {
        Deadline deadline = Deadline.after(Deadline.PER_FILE);
        try {
            WavHeader header = WavHeader.parse(audio, deadline);
            if (!header.linearSamples() || header.sampleRate() < MIN_SAMPLE_RATE) {
                return OptionalDouble.empty();
            }
            double[] energies = frameEnergies(audio.slice().order(ByteOrder.LITTLE_ENDIAN), header, deadline);
            return OptionalDouble.of(speechFrames(energies) * FRAME_SECONDS);
        } catch (UnreadableAudioException e) {
            return OptionalDouble.empty();
        }
    }

    static int speechFrames(double[] energies) {
        double[] sounding = Arrays.stream(energies).filter(energy -> energy >= DIGITAL_SILENCE_DBFS).sorted().toArray();
        if (sounding.length == 0) {
            return 0;
        }
        double floor = sounding[sounding.length / 10];
        int speech = 0;
        int hangover = 0;
        for (double energy : energies) {
            if (energy < DIGITAL_SILENCE_DBFS) {
                hangover = 0;
                continue;
            }
            floor = Math.min(energy, floor + FLOOR_RISE_DB_PER_FRAME);
            if (energy >= floor + SPEECH_ABOVE_FLOOR_DB && energy > ABSOLUTE_GATE_DBFS) {
                hangover = HANGOVER_FRAMES;
                speech++;
            } else if (hangover > 0) {
                hangover--;
                speech++;
            }
        }
        return speech;
    }

    /** Mean power of each whole frame, all channels together, in dBFS. */
    private static double[] frameEnergies(ByteBuffer wav, WavHeader header, Deadline deadline) throws UnreadableAudioException {
        int bytesPerSample = header.blockAlign() / header.channels();
        int frameBlocks = Math.max(1, (int) Math.round(header.sampleRate() * FRAME_SECONDS));
        long frameBytes = (long) frameBlocks * header.blockAlign();
        int frames = (int) (header.dataLength() / frameBytes);
        double[] energies = new double[frames];
        int position = header.dataOffset();
        int samplesPerFrame = frameBlocks * header.channels();
        for (int frame = 0; frame < frames; frame++) {
            deadline.step();
            double sumOfSquares = 0;
            for (int i = 0; i < samplesPerFrame; i++) {
                double sample = sample(wav, position, bytesPerSample, header.encoding());
                sumOfSquares += sample * sample;
                position += bytesPerSample;
            }
            double power = sumOfSquares / samplesPerFrame;
            energies[frame] = power > 0 ? Math.max(SILENCE_DBFS, 10 * Math.log10(power)) : SILENCE_DBFS;
        }
        return energies;
    }

    /** One sample scaled to [-1, 1]. */
    private static double sample(ByteBuffer wav, int position, int bytesPerSample, int encoding) {
        if (encoding == WavHeader.IEEE_FLOAT) {
            return wav.getFloat(position);
        }
        switch (bytesPerSample) {
            case 1:
                return ((wav.get(position) & 0xFF) - 128) / 128.0; // 8-bit WAV is unsigned
            case 2:
                return wav.getShort(position) / 32768.0;
            case 3:
                int value = (wav.get(position) & 0xFF) | (wav.get(position + 1) & 0xFF) << 8 | wav.get(position + 2) << 16;
                return value / 8388608.0;
            default:
                return wav.getInt(position) / 2147483648.0;
        }
    }
}
