package dev.triage.features.audio;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Reads an uploaded audio file's duration from its container. WAV, MP3, Ogg (Vorbis, Opus) and WebM
 * are read in memory by small parsers of our own, in microseconds; FLAC and MP4/M4A are spooled to a
 * temporary file for jaudiotagger, in about a millisecond. A file that cannot be read gets the
 * byte-size fallback ({@link AudioDuration#estimated()}), never an exception: the upload still goes
 * to the backend, which decides what it can decode.
 *
 * <p>Thread-safe and stateless. It does file I/O for FLAC and MP4, so call it off the event loop.
 *
 * <pre>{@code
 * AudioDuration duration = new AudioDurationReader(spoolDirectory).read(ByteBuffer.wrap(fileBytes));
 * }</pre>
 */
public final class AudioDurationReader {

    private final Path spoolDirectory;

    /** A reader that spools to the JVM's temporary directory. */
    public AudioDurationReader() {
        this(Path.of(System.getProperty("java.io.tmpdir")));
    }

    public AudioDurationReader(Path spoolDirectory) {
        this.spoolDirectory = Objects.requireNonNull(spoolDirectory, "spoolDirectory");
    }

    /** The duration of the audio file between {@code audio}'s position and limit; the buffer is not moved. */
    public AudioDuration read(ByteBuffer audio) {
        AudioFormat format = AudioFormat.detect(audio);
        try {
            return AudioDuration.read(format, seconds(audio, format));
        } catch (UnreadableAudioException e) {
            return AudioDuration.estimatedFromSize(format, audio.remaining());
        }
    }

    private double seconds(ByteBuffer audio, AudioFormat format) throws UnreadableAudioException {
        switch (format) {
            case WAV:
                return WavHeader.parse(audio).seconds();
            case MP3:
                return Mp3Duration.seconds(audio);
            case OGG_OPUS:
            case OGG_VORBIS:
                return OggDuration.seconds(audio);
            case WEBM:
                return MatroskaDuration.seconds(audio);
            case FLAC:
            case MP4:
                return SpooledDuration.seconds(audio, format, spoolDirectory);
            default:
                throw new UnreadableAudioException("unknown container");
        }
    }
}
