package dev.triage.bench.chaos;

import dev.triage.bench.PcmWav;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Audio for uploads: recordings from a folder when one is given (the project's audio fixtures),
 * tones made here otherwise; and files made to break a duration reader, by hand (sizes that promise
 * gigabytes, zero rates, endless headers, in every container Triage reads) or by damaging a
 * recording (cut short, bytes flipped, a size field set to its largest value).
 */
final class AudioSamples {

    private static final Set<String> EXTENSIONS = Set.of("wav", "mp3", "flac", "ogg", "opus", "m4a", "mp4", "webm");
    private static final long LARGEST_RECORDING = 2L << 20;

    /** An audio file to upload. */
    record Sample(String fileName, byte[] bytes, String what) {}

    private final List<Sample> recordings;
    private final List<Sample> crafted;

    private AudioSamples(List<Sample> recordings) {
        this.recordings = recordings;
        this.crafted = crafted();
    }

    /** The recordings in {@code folder} (up to 2 MB each); none when it is null or missing. */
    static AudioSamples load(Path folder) throws IOException {
        List<Sample> recordings = new ArrayList<>();
        if (folder != null && Files.isDirectory(folder)) {
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.sorted().toList()) {
                    String name = file.getFileName().toString();
                    String extension = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
                    if (EXTENSIONS.contains(extension) && Files.size(file) <= LARGEST_RECORDING) {
                        recordings.add(new Sample(name, Files.readAllBytes(file), "recording " + name));
                    }
                }
            }
        }
        return new AudioSamples(recordings);
    }

    int recordings() {
        return recordings.size();
    }

    /** A file that is what it says: a recording, or a tone. */
    Sample valid(Op op) {
        if (!recordings.isEmpty() && op.chance(0.7)) {
            return recordings.get(op.random.nextInt(recordings.size()));
        }
        double seconds = 0.2 + op.random.nextDouble() * 2.8;
        return new Sample("tone.wav", PcmWav.tone(seconds, 440, op.pick(new Integer[] {8_000, 16_000})), "tone");
    }

    /** A file made to break a duration reader. */
    Sample hostile(Op op) {
        if (recordings.isEmpty() || op.chance(0.5)) {
            return crafted.get(op.random.nextInt(crafted.size()));
        }
        Sample recording = recordings.get(op.random.nextInt(recordings.size()));
        byte[] bytes = recording.bytes();
        return switch (op.random.nextInt(3)) {
            case 0 -> {
                int length = op.random.nextInt(Math.max(1, bytes.length));
                yield new Sample(recording.fileName(), Arrays.copyOf(bytes, length), recording.fileName() + " cut short");
            }
            case 1 -> {
                byte[] flipped = bytes.clone();
                int flips = op.between(1, 20);
                for (int i = 0; i < flips; i++) {
                    int at = op.random.nextInt(Math.min(flipped.length, 4096));
                    flipped[at] = (byte) op.random.nextInt(256);
                }
                yield new Sample(recording.fileName(), flipped, recording.fileName() + " with bytes flipped");
            }
            default -> {
                byte[] sized = bytes.clone();
                int at = op.random.nextInt(Math.max(1, Math.min(sized.length - 4, 512)));
                sized[at] = 0x7f;
                sized[at + 1] = (byte) 0xff;
                sized[at + 2] = (byte) 0xff;
                sized[at + 3] = (byte) 0xf0;
                yield new Sample(recording.fileName(), sized, recording.fileName() + " with a size field at its largest");
            }
        };
    }

    private static List<Sample> crafted() {
        byte[] ftyp = box("ftyp", ascii("M4A "), new byte[4], ascii("M4A isom"));
        byte[] streamInfo = new byte[34];
        ByteBuffer.wrap(streamInfo).putShort((short) 4096).putShort((short) 4096).position(10)
                .putLong(0x000FFFFFFFFFL); // a sample rate of 0, and 2^36 - 1 samples
        return List.of(
                new Sample("a.m4a", concat(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0}, ascii("ftypM4A "), new byte[4],
                        new byte[64]), "an MP4 box declaring 2 GB"),
                new Sample("a.m4a", concat(ftyp, bigEndian(0x7ffffff0), ascii("moov"), new byte[64]), "a moov box declaring 2 GB"),
                new Sample("a.mp4", concat(ftyp, bigEndian(1), ascii("moov"), new byte[] {0x7f, -1, -1, -1, -1, -1, -1, -1}, new byte[32]),
                        "a moov box with a 64-bit size of 2^63"),
                new Sample("a.m4a", concat(ftyp, box("moov", box("mvhd", new byte[12], bigEndian(0), bigEndian(-1), new byte[80]))),
                        "an mvhd with a time scale of 0"),
                new Sample("a.m4a", concat(ftyp, deepBoxes(2_000)), "2,000 nested boxes"),
                new Sample("a.wav", wav(16_000, 0xffffffff, 100), "a WAV data chunk declaring 4 GB"),
                new Sample("a.wav", concat(ascii("RIFF"), littleEndian(36), ascii("WAVEfmt "), littleEndian(0xfffffff0), new byte[16]),
                        "a WAV fmt chunk declaring 4 GB"),
                new Sample("a.wav", wav(0, 1_000, 1_000), "a WAV at 0 Hz"),
                new Sample("a.flac", concat(ascii("fLaC"), new byte[] {0, -1, -1, -1}, new byte[34]), "a FLAC block declaring 16 MB"),
                new Sample("a.flac", concat(ascii("fLaC"), new byte[] {(byte) 0x80, 0, 0, 34}, streamInfo), "a FLAC stream at 0 Hz"),
                new Sample("a.ogg", concat(ascii("OggS"), new byte[] {0, 2}, new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}, new byte[12],
                        new byte[] {-1}, filled(40, (byte) -1)), "an Ogg page cut short, granule -1"),
                new Sample("a.opus", concat(ascii("OggS"), new byte[] {0, 2}, new byte[8], new byte[12], new byte[] {1, 19},
                        ascii("OpusHead"), new byte[] {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}), "an Opus header with no pages after it"),
                new Sample("a.webm", concat(new byte[] {0x1a, 0x45, (byte) 0xdf, (byte) 0xa3}, new byte[] {0x01, -1, -1, -1, -1, -1, -1, -1},
                        new byte[] {0x18, 0x53, (byte) 0x80, 0x67}, new byte[] {0x01, -1, -1, -1, -1, -1, -1, -1}, new byte[16]),
                        "WebM elements of unknown size"),
                new Sample("a.webm", concat(new byte[] {0x1a, 0x45, (byte) 0xdf, (byte) 0xa3}, new byte[] {0x01, 0, -1, -1, -1, -1, -1, -1},
                        new byte[8]), "a WebM header declaring 2^48 bytes"),
                new Sample("a.mp3", concat(ascii("ID3"), new byte[] {4, 0, 0, 0x7f, 0x7f, 0x7f, 0x7f}, new byte[32]),
                        "an ID3v2 tag declaring 256 MB"),
                new Sample("a.mp3", filled(4_096, (byte) 0xff), "frame syncs with no valid frame"),
                new Sample("a.mp3", concat(new byte[] {-1, -5, -112, 0}, new byte[32], ascii("Xing"), bigEndian(3), bigEndian(-1),
                        bigEndian(-1), new byte[400]), "a Xing header claiming 4 billion frames"),
                new Sample("a.wav", new byte[0], "an empty file"),
                new Sample("a.flac", new byte[] {'f'}, "one byte"));
    }

    private static byte[] wav(int sampleRate, int dataBytes, int present) {
        ByteBuffer wav = ByteBuffer.allocate(44 + present).order(ByteOrder.LITTLE_ENDIAN);
        wav.put(ascii("RIFF")).putInt(36 + dataBytes).put(ascii("WAVEfmt ")).putInt(16).putShort((short) 1).putShort((short) 1)
                .putInt(sampleRate).putInt(2 * sampleRate).putShort((short) 2).putShort((short) 16).put(ascii("data")).putInt(dataBytes);
        return wav.array();
    }

    private static byte[] box(String type, byte[]... content) {
        byte[] body = concat(content);
        return concat(bigEndian(8 + body.length), ascii(type), body);
    }

    private static byte[] deepBoxes(int depth) {
        byte[] inner = new byte[0];
        for (int i = 0; i < depth; i++) {
            inner = box(i % 2 == 0 ? "moov" : "trak", inner);
        }
        return inner;
    }

    private static byte[] bigEndian(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    private static byte[] littleEndian(int value) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array();
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        ByteBuffer all = ByteBuffer.allocate(length);
        for (byte[] part : parts) {
            all.put(part);
        }
        return all.array();
    }
}
