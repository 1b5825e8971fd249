package dev.triage.features.audio;

/**
 * An upload's duration, and how it was obtained: read from the container, or, when the container
 * could not be read, estimated from the byte size at {@link #FALLBACK_BYTES_PER_SECOND}.
 *
 * <p>The fallback rule: {@code seconds = bytes / 16,000}, that is the file is taken to be 128 kbit/s
 * audio, the default bitrate of common MP3 encoders and the middle of what speech uploads use
 * (16 kHz 16-bit PCM is 256 kbit/s, Opus voice 16-32 kbit/s). It keeps unreadable uploads ordered by
 * size among themselves; the caller counts them, since each is a guess.
 *
 * @param seconds the duration in seconds, finite and at least 0
 * @param format the detected container
 * @param estimated true when {@code seconds} is the byte-size fallback, not read from the container
 */
public record AudioDuration(double seconds, AudioFormat format, boolean estimated) {

    /** The byte rate the fallback assumes: 128 kbit/s. */
    public static final double FALLBACK_BYTES_PER_SECOND = 16_000;

    public AudioDuration {
        if (!(seconds >= 0) || Double.isInfinite(seconds)) {
            throw new IllegalArgumentException("seconds: " + seconds + " (expected: finite, >= 0)");
        }
    }

    static AudioDuration read(AudioFormat format, double seconds) {
        return new AudioDuration(seconds, format, false);
    }

    static AudioDuration estimatedFromSize(AudioFormat format, long bytes) {
        return new AudioDuration(bytes / FALLBACK_BYTES_PER_SECOND, format, true);
    }
}
