package dev.triage.bench.jmh;

import dev.triage.features.audio.AudioDuration;
import dev.triage.features.audio.AudioDurationReader;
import java.io.IOException;
import java.nio.ByteBuffer;
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

/**
 * Duration extraction per container for an upload already in memory, as the proxy pays it:
 * detection, then the container's reader.
 *
 * <p>{@code java -cp "bench/target/triage-bench.jar:bench/target/lib/*" org.openjdk.jmh.Main AudioDurationBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AudioDurationBenchmark {

    @Param({"pcm16-mono-16000.wav", "pcm24-stereo-8000-extensible.wav", "cbr.mp3", "vbr-id3v2.mp3", "vbr-no-xing.mp3",
            "speech-vorbis.ogg", "speech-opus.opus", "spoken.webm", "streamed-no-duration.webm", "speech.flac",
            "speech.m4a", "spoken-faststart.mp4"})
    public String fixture;

    private final AudioDurationReader reader = new AudioDurationReader();
    private ByteBuffer audio;

    @Setup(Level.Trial)
    public void load() throws IOException {
        audio = ByteBuffer.wrap(AudioFixtureFiles.read(fixture)).asReadOnlyBuffer();
    }

    @Benchmark
    public AudioDuration read() {
        AudioDuration duration = reader.read(audio);
        if (duration.estimated()) {
            throw new IllegalStateException(fixture + " fell back to the size estimate");
        }
        return duration;
    }
}
