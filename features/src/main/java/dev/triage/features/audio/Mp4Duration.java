package dev.triage.features.audio;

import java.nio.ByteBuffer;

/**
 * The duration of an MPEG-4 file (.m4a, .mp4): the movie header's ({@code moov/mvhd}) duration over
 * its time scale (ISO/IEC 14496-12, section 8.2.2). The walk hops from box to box by their declared
 * sizes and never reads past the bytes present, so {@code moov} is found whether the muxer wrote it
 * before the media data ("fast start") or after it, and a size that claims more than the file holds
 * costs nothing: the walk stops there, since such a file is cut before anything that follows.
 */
final class Mp4Duration {

    private static final int BOX_HEADER = 8;
    private static final long LARGE_SIZE = 1;
    private static final long TO_END_OF_FILE = 0;

    private Mp4Duration() {}

    static double seconds(ByteBuffer audio, Deadline deadline) throws UnreadableAudioException {
        ByteBuffer mvhd = body(body(audio.slice(), "moov", deadline), "mvhd", deadline);
        int version = mvhd.remaining() > 0 ? mvhd.get(0) & 0xFF : -1;
        // After version and flags: creation and modification times, time scale, duration; version 0
        // has 32-bit times and duration, version 1 64-bit ones.
        int timeScaleAt = version == 1 ? 20 : 12;
        int durationLength = version == 1 ? 8 : 4;
        if ((version != 0 && version != 1) || mvhd.limit() < timeScaleAt + 4 + durationLength) {
            throw new UnreadableAudioException("mvhd of version " + version + " and " + mvhd.limit() + " bytes");
        }
        long timeScale = Integer.toUnsignedLong(mvhd.getInt(timeScaleAt));
        long duration = version == 1 ? mvhd.getLong(timeScaleAt + 4) : Integer.toUnsignedLong(mvhd.getInt(timeScaleAt + 4));
        // All ones means "unknown"; zero is what a fragmented MP4, whose length is in its fragments, leaves here.
        boolean unknown = version == 1 ? duration == -1 : duration == 0xFFFF_FFFFL;
        if (timeScale == 0 || duration <= 0 || unknown) {
            throw new UnreadableAudioException("mvhd gives " + duration + " ticks at " + timeScale + " per second");
        }
        return (double) duration / timeScale;
    }

    /** The body of the first box of type {@code type} in {@code boxes}, as far as its bytes are present. */
    private static ByteBuffer body(ByteBuffer boxes, String type, Deadline deadline) throws UnreadableAudioException {
        int position = 0;
        while (position <= boxes.limit() - BOX_HEADER) {
            deadline.step();
            int left = boxes.limit() - position;
            long size = Integer.toUnsignedLong(boxes.getInt(position));
            int header = BOX_HEADER;
            if (size == LARGE_SIZE && left >= BOX_HEADER + 8) {
                size = boxes.getLong(position + BOX_HEADER);
                header += 8;
            } else if (size == TO_END_OF_FILE) {
                size = left;
            }
            if (size < header) {
                throw new UnreadableAudioException("a box of " + size + " bytes");
            }
            if (AudioFormat.startsWith(boxes, position + 4, type)) {
                return boxes.slice(position + header, (int) Math.min(left, size) - header);
            }
            if (size >= left) {
                break;
            }
            position += (int) size;
        }
        throw new UnreadableAudioException("no " + type + " box in the bytes present");
    }
}
