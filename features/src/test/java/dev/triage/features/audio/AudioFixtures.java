package dev.triage.features.audio;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

/**
 * The audio fixtures made by {@code scripts/make-audio-fixtures}, with their soxi/ffprobe durations.
 * Shared with the proxy's upload tests through this module's test jar.
 */
public record AudioFixtures(String file, AudioFormat format, double referenceSeconds, String source) {

    public static List<AudioFixtures> all() {
        String manifest = new String(bytesOf("fixtures.tsv"), StandardCharsets.UTF_8);
        return manifest.lines().skip(1).map(line -> line.split("\t")).map(columns -> new AudioFixtures(
                columns[0], AudioFormat.valueOf(columns[1]), Double.parseDouble(columns[2]), columns[4])).toList();
    }

    public static Stream<AudioFixtures> stream() {
        return all().stream();
    }

    public static AudioFixtures named(String file) {
        return all().stream().filter(fixture -> fixture.file.equals(file)).findFirst().orElseThrow();
    }

    public byte[] bytes() {
        return bytesOf(file);
    }

    static byte[] bytesOf(String name) {
        try (InputStream in = AudioFixtures.class.getResourceAsStream("/audio/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource /audio/" + name + " (scripts/make-audio-fixtures)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The tolerance the duration must meet: 2% of the reference or 50 ms, whichever is larger. */
    public double tolerance() {
        return Math.max(0.02 * referenceSeconds, 0.050);
    }

    @Override
    public String toString() {
        return file;
    }
}
