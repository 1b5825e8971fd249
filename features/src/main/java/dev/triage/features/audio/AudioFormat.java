package dev.triage.features.audio;

import java.nio.ByteBuffer;

/**
 * The audio containers Triage reads a duration from: those OpenAI's transcription API accepts
 * (flac, m4a/mp4, mp3/mpga/mpeg, ogg/oga, wav, webm). {@link #detect} tells them apart by their
 * leading bytes, never by the file name a client sends, which is often wrong or missing.
 */
public enum AudioFormat {
    WAV,
    FLAC,
    MP3,
    OGG_VORBIS,
    OGG_OPUS,
    /** MPEG-4 audio: .m4a, .mp4 (and .mpga/.mpeg uploads that are really MP4). */
    MP4,
    /** WebM, or any Matroska file. */
    WEBM,
    /** None of the above: the backend decides whether it can decode it. */
    UNKNOWN;

    /**
     * The format of the audio file that starts at {@code audio.position()}. Reads at most the first
     * Ogg page or the ID3v2 tag's header; does not move the buffer's position.
     */
    public static AudioFormat detect(ByteBuffer audio) {
        ByteBuffer bytes = audio.slice();
        if (startsWith(bytes, 0, "RIFF") && startsWith(bytes, 8, "WAVE")) {
            return WAV;
        }
        if (startsWith(bytes, 0, "fLaC")) {
            return FLAC;
        }
        if (startsWith(bytes, 0, "OggS")) {
            return oggCodec(bytes);
        }
        if (startsWith(bytes, 4, "ftyp")) {
            return MP4;
        }
        if (bytes.remaining() >= 4 && bytes.getInt(0) == 0x1A45DFA3) {
            return WEBM;
        }
        if (startsWith(bytes, 0, "ID3")) {
            // An ID3v2 tag can precede FLAC as well as MP3; what follows it decides.
            int afterTag = Id3v2.length(bytes, 0);
            return afterTag < bytes.remaining() && startsWith(bytes, afterTag, "fLaC") ? FLAC : MP3;
        }
        if (Mp3Duration.startsFrames(bytes, 0)) {
            return MP3;
        }
        return UNKNOWN;
    }

    /** The codec of an Ogg stream, from the first packet of its first page. */
    private static AudioFormat oggCodec(ByteBuffer bytes) {
        if (bytes.remaining() < 27) {
            return UNKNOWN;
        }
        int firstPacket = 27 + (bytes.get(26) & 0xFF);
        if (startsWith(bytes, firstPacket, "OpusHead")) {
            return OGG_OPUS;
        }
        if (firstPacket < bytes.remaining() && bytes.get(firstPacket) == 1 && startsWith(bytes, firstPacket + 1, "vorbis")) {
            return OGG_VORBIS;
        }
        return UNKNOWN;
    }

    /** True when the ASCII text {@code ascii} is at {@code offset}; allocates nothing, as readers call it in loops. */
    static boolean startsWith(ByteBuffer bytes, int offset, String ascii) {
        if (offset < 0 || offset > bytes.limit() - ascii.length()) {
            return false;
        }
        for (int i = 0; i < ascii.length(); i++) {
            if (bytes.get(offset + i) != (byte) ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
