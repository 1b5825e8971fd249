package dev.triage.bench.jmh;

import dev.triage.bench.PcmWav;
import dev.triage.bench.load.TranscriptionForm;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.proxy.sizing.AudioUpload;
import dev.triage.proxy.sizing.AudioUploadException;
import dev.triage.proxy.sizing.AudioUploadReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
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
 * A whole upload read as the proxy reads it off the event loop: the multipart decoder (which copies
 * the body once), then the duration. A small Opus clip, a FLAC clip, and a 25 MB WAV (the limit),
 * with voice-activity detection off and on.
 *
 * <p>{@code java -cp "bench/target/triage-bench.jar:bench/target/lib/*" org.openjdk.jmh.Main AudioUploadBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AudioUploadBenchmark {

    private static final String LARGEST_WAV = "25MB.wav";

    @Param({"speech-opus.opus", "speech.flac", LARGEST_WAV})
    public String file;

    @Param({"false", "true"})
    public boolean vad;

    private final HttpHeaders headers = new DefaultHttpHeaders().set("content-type", TranscriptionForm.CONTENT_TYPE);
    private ByteBuf body;
    private AudioUploadReader reader;

    @Setup(Level.Trial)
    public void load() throws IOException {
        byte[] audio = file.equals(LARGEST_WAV) ? PcmWav.of(new short[(25 * 1024 * 1024 - 1024) / 2], 16_000) : AudioFixtureFiles.read(file);
        byte[] form = TranscriptionForm.body("whisper-1", file, audio);
        body = PooledByteBufAllocator.DEFAULT.directBuffer(form.length).writeBytes(form);
        reader = new AudioUploadReader(new AudioDurationReader(), AudioUploadReader.DEFAULT_MAX_BODY_BYTES, vad);
    }

    @TearDown(Level.Trial)
    public void clean() {
        body.release();
    }

    @Benchmark
    public AudioUpload read() throws AudioUploadException {
        return reader.read(headers, body);
    }
}
