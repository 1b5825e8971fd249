package dev.triage.features.audio;

import java.nio.ByteBuffer;

/**
 * The duration of an MPEG audio stream (MP3, and Layer I/II in .mpga/.mpeg files), counted frame
 * by frame. Counting is the one method that is right for CBR, for VBR with a Xing/Info or VBRI
 * header, and for VBR without one: a reader that trusts the first frame's bitrate (jaudiotagger
 * 3.0.1 does) reports 1.33 s for a 3.35 s VBR file with no Xing header. The walk only hops from
 * header to header, about 1 ms for 25 MB.
 */
final class Mp3Duration {

    private static final int[][] KBITS = {
            {32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448}, // MPEG-1 layer I
            {32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},    // MPEG-1 layer II
            {32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},     // MPEG-1 layer III
            {32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},    // MPEG-2/2.5 layer I
            {8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},         // MPEG-2/2.5 layers II, III
    };
    private static final int[] MPEG1_RATES = {44_100, 48_000, 32_000};

    private Mp3Duration() {}

    static double seconds(ByteBuffer audio, Deadline deadline) throws UnreadableAudioException {
        ByteBuffer mp3 = audio.slice();
        int position = nextFrame(mp3, Id3v2.length(mp3, 0), deadline);
        if (position < 0) {
            throw new UnreadableAudioException("no MPEG audio frame");
        }
        int sampleRate = sampleRate(mp3.getInt(position));
        long samples = 0;
        boolean first = true;
        while (position >= 0) {
            deadline.step();
            int header = mp3.getInt(position);
            // The Xing/Info/VBRI frame at the start carries the encoder's table of contents, not audio.
            if (!(first && isEncoderInfoFrame(mp3, position, header))) {
                samples += samplesPerFrame(header);
            }
            first = false;
            int next = position + frameLength(header);
            position = isFrameHeader(mp3, next) ? next : nextFrame(mp3, next, deadline);
        }
        return (double) samples / sampleRate;
    }

    /**
     * True when a frame starts at {@code offset} and another frame (or the file's end) follows it: a
     * lone sync pattern in a tag or in random bytes is not taken for audio.
     */
    static boolean startsFrames(ByteBuffer bytes, int offset) {
        if (!isFrameHeader(bytes, offset)) {
            return false;
        }
        int next = offset + frameLength(bytes.getInt(offset));
        return next == bytes.limit() || isFrameHeader(bytes, next);
    }

    private static boolean isFrameHeader(ByteBuffer bytes, int offset) {
        return offset >= 0 && offset <= bytes.limit() - 4 && frameLength(bytes.getInt(offset)) > 0;
    }

    /** The first position at or after {@code from} where {@link #startsFrames} holds, or -1. */
    private static int nextFrame(ByteBuffer bytes, int from, Deadline deadline) throws UnreadableAudioException {
        for (int position = Math.max(from, 0); position <= bytes.limit() - 4; position++) {
            deadline.step();
            if ((bytes.get(position) & 0xFF) == 0xFF && startsFrames(bytes, position)) {
                return position;
            }
        }
        return -1;
    }

    /** The frame's length in bytes, or 0 when the 32 bits are not a usable frame header. */
    private static int frameLength(int header) {
        int version = (header >>> 19) & 3;
        int layer = (header >>> 17) & 3;
        int bitrateIndex = (header >>> 12) & 0xF;
        int rateIndex = (header >>> 10) & 3;
        if ((header >>> 21) != 0x7FF || version == 1 || layer == 0 || bitrateIndex == 0 || bitrateIndex == 15
                || rateIndex == 3) {
            return 0; // bitrate index 0 is "free format", whose frame length the header does not give
        }
        boolean mpeg1 = version == 3;
        int layerNumber = 4 - layer;
        int table = mpeg1 ? layerNumber - 1 : layerNumber == 1 ? 3 : 4;
        int bitsPerSecond = KBITS[table][bitrateIndex - 1] * 1000;
        int padding = (header >>> 9) & 1;
        if (layerNumber == 1) {
            return (12 * bitsPerSecond / sampleRate(header) + padding) * 4;
        }
        return samplesPerFrame(header) / 8 * bitsPerSecond / sampleRate(header) + padding;
    }

    private static int sampleRate(int header) {
        int version = (header >>> 19) & 3;
        int rate = MPEG1_RATES[(header >>> 10) & 3];
        return version == 3 ? rate : version == 2 ? rate / 2 : rate / 4;
    }

    private static int samplesPerFrame(int header) {
        int layerNumber = 4 - ((header >>> 17) & 3);
        boolean mpeg1 = ((header >>> 19) & 3) == 3;
        return layerNumber == 1 ? 384 : layerNumber == 2 || mpeg1 ? 1152 : 576;
    }

    private static boolean isEncoderInfoFrame(ByteBuffer bytes, int position, int header) {
        boolean mpeg1 = ((header >>> 19) & 3) == 3;
        boolean mono = ((header >>> 6) & 3) == 3;
        int sideInfo = mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17);
        int xing = position + 4 + sideInfo;
        return AudioFormat.startsWith(bytes, xing, "Xing") || AudioFormat.startsWith(bytes, xing, "Info")
                || AudioFormat.startsWith(bytes, position + 36, "VBRI");
    }
}
