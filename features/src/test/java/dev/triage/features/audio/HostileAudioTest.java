package dev.triage.features.audio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Files built to make a reader allocate, loop or trust what they declare: each costs a guess, nothing more. */
class HostileAudioTest {

    /** Far above what reading any of these needs, far below the gigabytes a declared size could ask for. */
    private static final long ALLOCATION_LIMIT_BYTES = 4L * 1024 * 1024;
    private static final Duration TIME_LIMIT = Duration.ofSeconds(2);

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    static Stream<Named<byte[]>> declaringGigabytes() {
        return Stream.of(
                Named.of("an ftyp box of 2 GB in 80 bytes", pad(80, box(0x7FFFFFF0, "ftyp", "M4A \0\0\0\0"))),
                Named.of("a moov box of 2 GB", pad(80, box(20, "ftyp", "M4A \0\0\0\0M4A "), box(0x7FFFFFF0, "moov", ""))),
                Named.of("a moov box of 2^62 bytes in a 64-bit size", pad(80, box(20, "ftyp", "M4A \0\0\0\0M4A "),
                        ByteBuffer.allocate(16).putInt(1).put(ascii("moov")).putLong(1L << 62).array())),
                Named.of("an mvhd of 4 GB inside a small moov", pad(80, box(20, "ftyp", "M4A \0\0\0\0M4A "), box(40, "moov", ""),
                        box(0xFFFFFFF0, "mvhd", ""))),
                Named.of("a FLAC STREAMINFO of 16 MB", pad(80, ascii("fLaC"), new byte[] {0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF})),
                Named.of("a WAV chunk of 4 GB before fmt", pad(80, riff(), ascii("LIST"), new byte[] {-16, -1, -1, -1})),
                Named.of("a Matroska element of 2^56 bytes", pad(80, new byte[] {0x1A, 0x45, (byte) 0xDF, (byte) 0xA3, (byte) 0x84, 0x42,
                        (byte) 0x82, (byte) 0x81, 0x77, 0x18, 0x53, (byte) 0x80, 0x67, 0x01, 0x7F, -1, -1, -1, -1, -1, -1})),
                Named.of("an ID3 tag of 256 MB before MPEG frames", pad(80, new byte[] {'I', 'D', '3', 4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F})),
                Named.of("an Ogg page of 255 segments of 255 bytes", pad(80, oggOpusHeaderPage(), ascii("OggS"), new byte[23],
                        new byte[] {(byte) 0xFF})));
    }

    @ParameterizedTest
    @MethodSource("declaringGigabytes")
    void aHeaderDeclaringGigabytesCostsNeitherMemoryNorTime(byte[] hostile) {
        long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
        // The thread's own CPU time: a loop over a declared size costs it, a busy machine's wait does not.
        long started = THREADS.getCurrentThreadCpuTime();
        AudioDuration duration = new AudioDurationReader().read(ByteBuffer.wrap(hostile));
        long elapsedNanos = THREADS.getCurrentThreadCpuTime() - started;
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;

        assertTrue(allocated < ALLOCATION_LIMIT_BYTES, allocated + " bytes allocated");
        assertTrue(elapsedNanos < TIME_LIMIT.toNanos(), elapsedNanos / 1e6 + " ms of CPU");
        assertEquals(new AudioDuration(hostile.length / AudioDuration.FALLBACK_BYTES_PER_SECOND, duration.format(), true), duration);
    }

    @Test
    void aDurationLongerThanTheBytesCouldHoldIsAGuess() {
        byte[] mvhd = new byte[100];
        ByteBuffer.wrap(mvhd).put((byte) 1).position(20).putInt(1).putLong(Long.MAX_VALUE);
        byte[] mp4 = pad(200, box(20, "ftyp", "M4A \0\0\0\0M4A "), box(8 + mvhd.length + 8, "moov", ""), box(8 + mvhd.length, "mvhd", ""), mvhd);
        AudioDuration duration = new AudioDurationReader().read(ByteBuffer.wrap(mp4));
        assertEquals(new AudioDuration(200 / AudioDuration.FALLBACK_BYTES_PER_SECOND, AudioFormat.MP4, true), duration);

        // 1 Hz, one byte per second: the 1,000 bytes of samples claim 1,000 s.
        ByteBuffer wav = ByteBuffer.allocate(1044).order(ByteOrder.LITTLE_ENDIAN);
        wav.put(riff()).put(ascii("fmt ")).putInt(16).putShort((short) 1).putShort((short) 1).putInt(1).putInt(1)
                .putShort((short) 1).putShort((short) 8).put(ascii("data")).putInt(1000);
        AudioDuration slow = new AudioDurationReader().read(wav.clear());
        assertTrue(slow.estimated(), slow.toString());
        assertTrue(SpeechActivity.speechSeconds(wav).isEmpty(), "no frame per byte for the voice-activity detector");
    }

    @Test
    void aReaderOverItsTimeBudgetGivesTheSizeEstimate() {
        byte[] frames = AudioFixtures.named("cbr.mp3").bytes();
        byte[] many = new byte[frames.length * 200];
        for (int i = 0; i < 200; i++) {
            System.arraycopy(frames, 0, many, i * frames.length, frames.length);
        }
        assertFalse(new AudioDurationReader().read(ByteBuffer.wrap(many)).estimated(), "read within the default budget");
        AudioDuration late = new AudioDurationReader(Duration.ZERO).read(ByteBuffer.wrap(many));
        assertEquals(new AudioDuration(many.length / AudioDuration.FALLBACK_BYTES_PER_SECOND, AudioFormat.MP3, true), late);
    }

    @Test
    void anErrorFromTheBufferItselfIsContainedToTheUpload(@TempDir Path directory) throws IOException {
        Path file = Files.write(directory.resolve("upload.m4a"), AudioFixtures.named("speech.m4a").bytes());
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            // Reading a mapping whose file has shrunk faults: the JVM throws InternalError, a VirtualMachineError.
            channel.truncate(0);
            AudioDuration duration = new AudioDurationReader().read(mapped);
            assertTrue(duration.estimated(), duration.toString());
        }
    }

    private static byte[] box(long size, String type, String body) {
        return ByteBuffer.allocate(8 + body.length()).putInt((int) size).put(ascii(type)).put(ascii(body)).array();
    }

    private static byte[] riff() {
        return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).put(ascii("RIFF")).putInt(0).put(ascii("WAVE")).array();
    }

    /** An Opus identification header on a page that ends no packet (granule position -1). */
    private static byte[] oggOpusHeaderPage() {
        ByteBuffer page = ByteBuffer.allocate(27 + 1 + 19).order(ByteOrder.LITTLE_ENDIAN);
        page.put(ascii("OggS")).put((byte) 0).put((byte) 2).putLong(-1).putInt(7).putInt(0).putInt(0).put((byte) 1).put((byte) 19)
                .put(ascii("OpusHead")).put((byte) 1).put((byte) 1).putShort((short) 312).putInt(48_000).putShort((short) 0).put((byte) 0);
        return page.array();
    }

    /** The parts one after another, then zeros up to {@code length} bytes. */
    private static byte[] pad(int length, byte[]... parts) {
        byte[] file = new byte[length];
        int position = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, file, position, part.length);
            position += part.length;
        }
        return Arrays.copyOf(file, Math.max(length, position));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }
}
