package dev.triage.features.audio;

import java.nio.ByteBuffer;

/**
 * The duration of a WebM (Matroska) file: the Segment Info's {@code Duration} scaled by its
 * {@code TimecodeScale} (nanoseconds per tick, 1,000,000 by default). A file written where the muxer
 * could not seek back, such as a browser's MediaRecorder output, has no Duration; then the
 * timestamp of its last block stands in (short of the true length by one frame, 20-60 ms for Opus).
 *
 * <p>The walk descends into the Segment, its Info, Clusters and BlockGroups, and hops over every other
 * element by its size, so Segments and Clusters of unknown size (live streams) read too.
 */
final class MatroskaDuration {

    private static final int SEGMENT = 0x18538067;
    private static final int INFO = 0x1549A966;
    private static final int TIMECODE_SCALE = 0x2AD7B1;
    private static final int DURATION = 0x4489;
    private static final int CLUSTER = 0x1F43B675;
    private static final int CLUSTER_TIMECODE = 0xE7;
    private static final int SIMPLE_BLOCK = 0xA3;
    private static final int BLOCK_GROUP = 0xA0;
    private static final int BLOCK = 0xA1;
    private static final int BLOCK_DURATION = 0x9B;
    private static final long UNKNOWN_SIZE = -1;

    private MatroskaDuration() {}

    static double seconds(ByteBuffer audio, Deadline deadline) throws UnreadableAudioException {
        ByteBuffer mkv = audio.slice();
        long nanosPerTick = 1_000_000;
        double duration = Double.NaN;
        long infoEnd = Long.MAX_VALUE;
        long clusterTime = 0;
        long blockStart = 0;
        long lastTick = -1;
        int position = 0;
        while (position < mkv.limit()) {
            deadline.step();
            int[] idLength = new int[1];
            long id = readVint(mkv, position, idLength, false);
            if (id < 0) {
                break;
            }
            int[] sizeLength = new int[1];
            long size = readVint(mkv, position + idLength[0], sizeLength, true);
            if (size < UNKNOWN_SIZE) {
                break;
            }
            int data = position + idLength[0] + sizeLength[0];
            if (id == SEGMENT || id == CLUSTER || id == BLOCK_GROUP || id == INFO) {
                if (id == INFO && size != UNKNOWN_SIZE) {
                    infoEnd = data + size;
                }
                position = data; // descend: the children follow
                continue;
            }
            if (size == UNKNOWN_SIZE || data + size > mkv.limit()) {
                break; // only master elements may have an unknown size; or the file is truncated here
            }
            int length = (int) size;
            if (id == TIMECODE_SCALE) {
                nanosPerTick = readUnsigned(mkv, data, length);
            } else if (id == DURATION) {
                duration = length == 4 ? mkv.getFloat(data) : length == 8 ? mkv.getDouble(data) : Double.NaN;
            } else if (id == CLUSTER_TIMECODE) {
                clusterTime = readUnsigned(mkv, data, length);
            } else if (id == SIMPLE_BLOCK || id == BLOCK) {
                blockStart = clusterTime + blockTimecode(mkv, data, length);
                lastTick = Math.max(lastTick, blockStart);
            } else if (id == BLOCK_DURATION) {
                lastTick = Math.max(lastTick, blockStart + readUnsigned(mkv, data, length));
            }
            position = data + length;
            if (position >= infoEnd && !Double.isNaN(duration)) {
                break; // the Info element is done and gave a Duration: no need to walk the clusters
            }
        }
        if (nanosPerTick <= 0) {
            throw new UnreadableAudioException("TimecodeScale " + nanosPerTick);
        }
        double ticks = !Double.isNaN(duration) ? duration : lastTick;
        // Scaled, a finite Duration can still overflow: 1e308 ticks of a millisecond is infinite.
        double seconds = ticks * nanosPerTick / 1e9;
        if (!(seconds >= 0) || Double.isInfinite(seconds)) {
            throw new UnreadableAudioException("no Duration and no blocks, or a Duration of " + ticks + " ticks");
        }
        return seconds;
    }

    /**
     * An EBML variable-length integer at {@code offset}: its length (1 to 8 bytes) is one more than the
     * number of leading zero bits of the first byte. Element IDs keep that length marker, sizes drop
     * it, and a size of all ones means "unknown". Returns -2 when the bytes run out or are invalid.
     */
    private static long readVint(ByteBuffer bytes, int offset, int[] length, boolean isSize) {
        if (offset >= bytes.limit()) {
            return -2;
        }
        int first = bytes.get(offset) & 0xFF;
        int width = Integer.numberOfLeadingZeros(first) - 23;
        if (first == 0 || width > (isSize ? 8 : 4) || offset + width > bytes.limit()) {
            return -2;
        }
        long value = isSize ? first & (0xFF >>> width) : first;
        boolean allOnes = value == (0xFF >>> width);
        for (int i = 1; i < width; i++) {
            int next = bytes.get(offset + i) & 0xFF;
            allOnes &= next == 0xFF;
            value = (value << 8) | next;
        }
        length[0] = width;
        return isSize && allOnes ? UNKNOWN_SIZE : value;
    }

    private static long readUnsigned(ByteBuffer bytes, int offset, int length) {
        long value = 0;
        for (int i = 0; i < Math.min(length, 8); i++) {
            value = (value << 8) | (bytes.get(offset + i) & 0xFF);
        }
        return value;
    }

    /** A block's signed 16-bit timestamp, relative to its cluster, after the track number. */
    private static long blockTimecode(ByteBuffer bytes, int offset, int length) {
        int[] trackLength = new int[1];
        if (readVint(bytes, offset, trackLength, true) < UNKNOWN_SIZE || trackLength[0] + 2 > length) {
            return 0;
        }
        return bytes.getShort(offset + trackLength[0]);
    }
}
