package dev.triage.bench.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.jaudiotagger.audio.flac.FlacInfoReader;
import org.jaudiotagger.audio.mp4.Mp4InfoReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What reading FLAC and MP4 through jaudiotagger costs, in its two parts: writing the upload to a
 * temporary file and deleting it ({@code spool}; also for a 25 MB upload, the API's limit), and
 * jaudiotagger's header reader on a file already written ({@code jaudiotagger}).
 *
 * <p>{@code java -cp "bench/target/triage-bench.jar:bench/target/lib/*" org.openjdk.jmh.Main AudioSpoolBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AudioSpoolBenchmark {

    private static final String LARGEST_UPLOAD = "25MB";

    @Param({"speech.flac", "speech.m4a", "spoken-faststart.mp4", LARGEST_UPLOAD})
    public String upload;

    private ByteBuffer bytes;
    private Path directory;
    private Path written;

    @Setup(Level.Trial)
    public void load() throws IOException {
        bytes = upload.equals(LARGEST_UPLOAD) ? ByteBuffer.allocateDirect(25 * 1024 * 1024) : ByteBuffer.wrap(AudioFixtureFiles.read(upload));
        directory = Files.createTempDirectory("triage-bench-spool");
        written = directory.resolve("written-" + upload);
        Files.write(written, upload.equals(LARGEST_UPLOAD) ? new byte[0] : AudioFixtureFiles.read(upload));
    }

    @TearDown(Level.Trial)
    public void clean() throws IOException {
        Files.deleteIfExists(written);
        Files.deleteIfExists(directory);
    }

    @Benchmark
    public long spool() throws IOException {
        Path file = Files.createTempFile(directory, "triage-audio-", ".bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer view = bytes.duplicate();
            long total = 0;
            while (view.hasRemaining()) {
                total += channel.write(view);
            }
            return total;
        } finally {
            Files.delete(file);
        }
    }

    @Benchmark
    public double jaudiotagger() throws Exception {
        if (upload.endsWith(".flac")) {
            return new FlacInfoReader().read(written).getPreciseTrackLength();
        }
        if (upload.endsWith(".m4a") || upload.endsWith(".mp4")) {
            return new Mp4InfoReader().read(written).getPreciseTrackLength();
        }
        return 0;
    }
}
