package dev.triage.features.audio;

import java.nio.ByteBuffer;

/** The ID3v2 tag that MP3 (and sometimes FLAC) files start with: only its length matters here. */
final class Id3v2 {

    private Id3v2() {}

    /**
     * The offset just past the ID3v2 tag that starts at {@code offset}, or {@code offset} itself when
     * there is none. The size is four 7-bit "syncsafe" bytes; a footer adds 10 bytes.
     */
    static int length(ByteBuffer bytes, int offset) {
        if (!AudioFormat.startsWith(bytes, offset, "ID3") || bytes.limit() - offset < 10) {
            return offset;
        }
        int size = 0;
        for (int i = 6; i < 10; i++) {
            size = (size << 7) | (bytes.get(offset + i) & 0x7F);
        }
        boolean footer = (bytes.get(offset + 5) & 0x10) != 0;
        return offset + 10 + size + (footer ? 10 : 0);
    }
}
