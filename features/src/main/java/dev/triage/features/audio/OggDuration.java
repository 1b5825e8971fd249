package dev.triage.features.audio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The duration of an Ogg Vorbis or Ogg Opus file: the granule position of the stream's last complete
 * page, in samples. Opus counts at 48 kHz whatever the input rate and starts with {@code pre-skip}
 * samples the decoder drops (RFC 7845, sections 4 and 5.1); Vorbis counts at the rate of its
 * identification header. One reader serves both, since they differ only in those two numbers.
 */
final class OggDuration {

    private static final int PAGE_HEADER = 27;
    private static final long NO_GRANULE = -1;
    private static final double OPUS_RATE = 48_000;

    private OggDuration() {}

    static double seconds(ByteBuffer audio, Deadline deadline) throws UnreadableAudioException {
        ByteBuffer ogg = audio.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (ogg.limit() < PAGE_HEADER || ogg.limit() < pageLength(ogg, 0)) {
            throw new UnreadableAudioException("first Ogg page is incomplete");
        }
        int packet = PAGE_HEADER + (ogg.get(26) & 0xFF);
        int serial = ogg.getInt(14);
        long lastGranule = lastGranule(ogg, serial, deadline);
        if (AudioFormat.startsWith(ogg, packet, "OpusHead") && ogg.limit() >= packet + 12) {
            int preSkip = ogg.getShort(packet + 10) & 0xFFFF;
            return Math.max(0, lastGranule - preSkip) / OPUS_RATE;
        }
        if (AudioFormat.startsWith(ogg, packet + 1, "vorbis") && ogg.limit() >= packet + 16) {
            int rate = ogg.getInt(packet + 12);
            if (rate <= 0) {
                throw new UnreadableAudioException("Vorbis sample rate " + rate);
            }
            return (double) lastGranule / rate;
        }
        throw new UnreadableAudioException("Ogg stream is neither Opus nor Vorbis");
    }

    /**
     * The granule position of the last complete page of the logical stream {@code serial}, searched
     * backwards from the end, so a truncated upload counts only the audio it holds.
     */
    private static long lastGranule(ByteBuffer ogg, int serial, Deadline deadline) throws UnreadableAudioException {
        for (int page = ogg.limit() - PAGE_HEADER; page >= 0; page--) {
            deadline.step();
            if (ogg.get(page) == 'O' && AudioFormat.startsWith(ogg, page, "OggS") && ogg.get(page + 4) == 0
                    && ogg.getInt(page + 14) == serial && page + pageLength(ogg, page) <= ogg.limit()) {
                long granule = ogg.getLong(page + 6);
                if (granule != NO_GRANULE) {
                    if (granule < 0) {
                        throw new UnreadableAudioException("negative granule position " + granule);
                    }
                    return granule;
                }
            }
        }
        throw new UnreadableAudioException("no complete Ogg page with a granule position");
    }

    /** Header, segment table and body; past the buffer's end when the page is truncated. */
    private static long pageLength(ByteBuffer ogg, int page) {
        int segments = ogg.get(page + 26) & 0xFF;
        if (page + PAGE_HEADER + segments > ogg.limit()) {
            return Long.MAX_VALUE / 2;
        }
        long length = PAGE_HEADER + segments;
        for (int i = 0; i < segments; i++) {
            length += ogg.get(page + PAGE_HEADER + i) & 0xFF;
        }
        return length;
    }
}
