package dev.triage.features.audio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The parts of a RIFF/WAVE header that give the duration and let {@link SpeechActivity} read the
 * samples. Plain header arithmetic: faster than handing the file to a tag library, and it sees what a
 * streaming client's upload looks like (sizes left at 0 or 0xFFFFFFFF, a truncated data chunk), where
 * the audio actually present is what counts.
 *
 * @param encoding {@link #PCM}, {@link #IEEE_FLOAT}, or another WAVE format tag (the sub-format's for
 *     WAVE_FORMAT_EXTENSIBLE)
 * @param dataOffset where the samples start, relative to the buffer's position
 * @param dataLength bytes of sample data present in the buffer
 */
record WavHeader(int encoding, int channels, int sampleRate, long byteRate, int blockAlign, int bitsPerSample,
                 int dataOffset, long dataLength) {

    static final int PCM = 1;
    static final int IEEE_FLOAT = 3;
    private static final int EXTENSIBLE = 0xFFFE;
    private static final long UNKNOWN_SIZE = 0xFFFFFFFFL;

    /** Reads the header of the WAV file that starts at {@code audio.position()}. */
    static WavHeader parse(ByteBuffer audio, Deadline deadline) throws UnreadableAudioException {
        ByteBuffer wav = audio.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (!AudioFormat.startsWith(wav, 0, "RIFF") || !AudioFormat.startsWith(wav, 8, "WAVE")) {
            throw new UnreadableAudioException("not a RIFF/WAVE file");
        }
        int position = 12;
        ByteBuffer format = null;
        while (position <= wav.limit() - 8) {
            deadline.step();
            long size = Integer.toUnsignedLong(wav.getInt(position + 4));
            int body = position + 8;
            if (AudioFormat.startsWith(wav, position, "data")) {
                if (format == null) {
                    throw new UnreadableAudioException("data chunk before the fmt chunk");
                }
                long present = wav.limit() - body;
                long length = size == 0 || size == UNKNOWN_SIZE ? present : Math.min(size, present);
                return fromFormat(format, body, length);
            }
            if (size > wav.limit() - body) {
                throw new UnreadableAudioException("chunk runs past the end of the file");
            }
            if (AudioFormat.startsWith(wav, position, "fmt ") && size >= 16) {
                format = wav.slice(body, (int) size).order(ByteOrder.LITTLE_ENDIAN);
            }
            position = body + (int) size + (int) (size & 1);
        }
        throw new UnreadableAudioException(format == null ? "no fmt chunk" : "no data chunk");
    }

    private static WavHeader fromFormat(ByteBuffer format, int dataOffset, long dataLength) throws UnreadableAudioException {
        int encoding = format.getShort(0) & 0xFFFF;
        if (encoding == EXTENSIBLE && format.limit() >= 26) {
            encoding = format.getShort(24) & 0xFFFF;
        }
        WavHeader header = new WavHeader(encoding, format.getShort(2) & 0xFFFF, format.getInt(4),
                Integer.toUnsignedLong(format.getInt(8)), format.getShort(12) & 0xFFFF, format.getShort(14) & 0xFFFF,
                dataOffset, dataLength);
        if (header.channels == 0 || header.sampleRate <= 0 || header.byteRate == 0 || header.blockAlign == 0) {
            throw new UnreadableAudioException("fmt chunk with a zero rate, channel count or block size");
        }
        return header;
    }

    /** Whole blocks of sample data over the byte rate: exact for PCM, nominal for compressed encodings. */
    double seconds() {
        return (double) (dataLength - dataLength % blockAlign) / byteRate;
    }

    /** True for the encodings {@link SpeechActivity} can read: 8/16/24/32-bit integer PCM and 32-bit float. */
    boolean linearSamples() {
        int bytesPerSample = blockAlign / channels;
        if (blockAlign % channels != 0) {
            return false;
        }
        return encoding == PCM ? bytesPerSample >= 1 && bytesPerSample <= 4 : encoding == IEEE_FLOAT && bytesPerSample == 4;
    }
}
