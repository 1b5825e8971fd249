package dev.triage.features.audio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jaudiotagger.audio.AudioHeader;
import org.jaudiotagger.audio.exceptions.CannotReadException;
import org.jaudiotagger.audio.flac.FlacInfoReader;
import org.jaudiotagger.audio.mp4.Mp4InfoReader;

/**
 * FLAC and MP4/M4A durations, read by jaudiotagger's header readers (FLAC's STREAMINFO sample count,
 * MP4's {@code mvhd}/{@code mdhd} time scale and duration). jaudiotagger reads only files, so the
 * upload is first written to a temporary file, which is deleted before this returns.
 */
final class SpooledDuration {

    /*
     * jaudiotagger reports every malformed file at SEVERE or WARNING through java.util.logging; with
     * uploads from clients, that would let anyone write to Triage's log at will. The reference is held
     * so the logger (and its level) is not collected.
     */
    private static final Logger JAUDIOTAGGER_LOG = Logger.getLogger("org.jaudiotagger");

    static {
        JAUDIOTAGGER_LOG.setLevel(Level.OFF);
    }

    private SpooledDuration() {}

    static double seconds(ByteBuffer audio, AudioFormat format, Path spoolDirectory) throws UnreadableAudioException {
        Path file;
        try {
            file = Files.createTempFile(spoolDirectory, "triage-audio-", format == AudioFormat.FLAC ? ".flac" : ".m4a");
        } catch (IOException e) {
            throw new UnreadableAudioException("cannot create a spool file in " + spoolDirectory, e);
        }
        try {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = audio.duplicate();
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
            }
            AudioHeader header = format == AudioFormat.FLAC ? new FlacInfoReader().read(file) : new Mp4InfoReader().read(file);
            double seconds = header.getPreciseTrackLength();
            // Zero is what a FLAC encoder writing to a pipe, or a fragmented MP4, leaves in the header:
            // "unknown", not "empty".
            if (!(seconds > 0) || Double.isInfinite(seconds)) {
                throw new UnreadableAudioException(format + " header gives " + seconds + " s");
            }
            return seconds;
        } catch (IOException | CannotReadException | RuntimeException e) {
            // jaudiotagger signals some malformed input with unchecked exceptions (buffer underflows,
            // negative sizes); for an upload they mean the same as CannotReadException.
            throw new UnreadableAudioException(format + " header unreadable: " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                file.toFile().deleteOnExit();
            }
        }
    }
}
