package dev.triage.features.audio;

import java.nio.ByteBuffer;

/**
 * The duration of a FLAC file: total samples over sample rate, both in the STREAMINFO block that
 * must follow the {@code fLaC} marker (RFC 9639, section 8.2). An encoder writing to a pipe cannot
 * seek back to fill in the total, and leaves it at 0: that means "unknown", not "empty".
 */
final class FlacDuration {

    private static final int STREAMINFO = 0;
    private static final int STREAMINFO_LENGTH = 34;
    private static final int BLOCK_HEADER = 4;

    private FlacDuration() {}

    static double seconds(ByteBuffer audio) throws UnreadableAudioException {
        ByteBuffer flac = audio.slice();
        int marker = Id3v2.length(flac, 0);
        if (!AudioFormat.startsWith(flac, marker, "fLaC")) {
            throw new UnreadableAudioException("no fLaC marker");
        }
        int header = marker + 4;
        int info = header + BLOCK_HEADER;
        if (info > flac.limit() - STREAMINFO_LENGTH) {
            throw new UnreadableAudioException("STREAMINFO is cut off");
        }
        int blockType = flac.get(header) & 0x7F;
        int blockLength = flac.getInt(header) & 0xFFFFFF;
        if (blockType != STREAMINFO || blockLength < STREAMINFO_LENGTH) {
            throw new UnreadableAudioException("the first metadata block is not STREAMINFO");
        }
        // Bytes 10-17: sample rate (20 bits), channels - 1 (3), bits per sample - 1 (5), total samples (36).
        long packed = flac.getLong(info + 10);
        int sampleRate = (int) (packed >>> 44);
        long totalSamples = packed & 0xF_FFFF_FFFFL;
        if (sampleRate == 0 || totalSamples == 0) {
            throw new UnreadableAudioException("STREAMINFO gives " + totalSamples + " samples at " + sampleRate + " Hz");
        }
        return (double) totalSamples / sampleRate;
    }
}
