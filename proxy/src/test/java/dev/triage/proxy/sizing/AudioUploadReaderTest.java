package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.audio.AudioClip;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.features.audio.AudioFixtures;
import dev.triage.features.audio.AudioFormat;
import dev.triage.proxy.testing.MultipartForm;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class AudioUploadReaderTest {

    private static final String BOUNDARY = MultipartForm.BOUNDARY;

    private AudioUploadReader reader() {
        return new AudioUploadReader(new AudioDurationReader(), AudioUploadReader.DEFAULT_MAX_BODY_BYTES, false);
    }

    /** Reads {@code body} from a pooled direct buffer, as the server's aggregator hands it over, and releases it. */
    private static AudioUpload read(AudioUploadReader reader, String contentType, byte[] body) throws AudioUploadException {
        HttpHeaders headers = new DefaultHttpHeaders().set("content-type", contentType);
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(body.length).writeBytes(body);
        try {
            return reader.read(headers, buffer);
        } finally {
            buffer.release();
        }
    }

    private AudioUpload read(byte[] body) throws AudioUploadException {
        return read(reader(), "multipart/form-data; boundary=" + BOUNDARY, body);
    }

    static Stream<AudioFixtures> fixtures() {
        return AudioFixtures.stream();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void everyFormatIsMeasuredThroughTheForm(AudioFixtures fixture) throws Exception {
        AudioUpload upload = read(new MultipartForm().field("model", "whisper-1").file(fixture.file(), fixture.bytes()).build());
        assertEquals(fixture.format(), upload.duration().format());
        assertFalse(upload.durationEstimated());
        assertEquals(fixture.referenceSeconds(), upload.duration().seconds(), fixture.tolerance());
        assertEquals(fixture.bytes().length, upload.fileBytes());
    }

    @Test
    void fieldsAreReadAndTheFileNameIsNotTrusted() throws Exception {
        AudioFixtures opus = AudioFixtures.named("speech-opus.opus");
        AudioUpload upload = read(new MultipartForm().field("model", "whisper-1").field("language", "es")
                .field("response_format", "verbose_json").field("stream", "true").file("speech.mp3", opus.bytes()).build());
        assertEquals("whisper-1", upload.model());
        assertEquals("es", upload.language());
        assertEquals("verbose_json", upload.responseFormat());
        assertTrue(upload.stream());
        assertEquals("speech.mp3", upload.fileName());
        assertEquals(AudioFormat.OGG_OPUS, upload.duration().format());
        assertEquals(new AudioClip(upload.duration().seconds(), "es", false), upload.clip());
    }

    @Test
    void absentFieldsAreEmpty() throws Exception {
        AudioUpload upload = read(new MultipartForm().file("a.wav", AudioFixtures.named("pcm8-mono-8000.wav").bytes()).build());
        assertEquals("", upload.model());
        assertEquals("", upload.language());
        assertEquals("", upload.responseFormat());
        assertFalse(upload.stream());
    }

    @Test
    void theCallersBufferIsLeftAsItWas() throws Exception {
        byte[] body = new MultipartForm().field("model", "whisper-1").file("s.flac", AudioFixtures.named("speech.flac").bytes()).build();
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(body.length + 16).writeZero(16).writeBytes(body);
        buffer.readerIndex(16);
        try {
            reader().read(new DefaultHttpHeaders().set("content-type", "multipart/form-data; boundary=" + BOUNDARY), buffer);
            assertEquals(16, buffer.readerIndex());
            assertEquals(16 + body.length, buffer.writerIndex());
            assertEquals(1, buffer.refCnt());
            assertArrayEquals(body, ByteBufUtil.getBytes(buffer));
        } finally {
            buffer.release();
        }
    }

    @Test
    void badAudioIsForwardedWithTheSizeEstimate() throws Exception {
        AudioUpload empty = read(new MultipartForm().file("empty.wav", new byte[0]).build());
        assertTrue(empty.durationEstimated());
        assertEquals(0, empty.clip().seconds());

        byte[] noise = new byte[32_000];
        new Random(11).nextBytes(noise);
        AudioUpload random = read(new MultipartForm().file("noise.mp3", noise).build());
        assertTrue(random.durationEstimated());
        assertEquals(2.0, random.clip().seconds(), 1e-9);
        assertTrue(random.clip().durationEstimated());

        byte[] m4a = AudioFixtures.named("speech.m4a").bytes();
        AudioUpload truncated = read(new MultipartForm().file("speech.m4a", Arrays.copyOf(m4a, m4a.length / 2)).build());
        assertEquals(AudioFormat.MP4, truncated.duration().format());
        assertTrue(truncated.durationEstimated(), "the moov box was cut off");
    }

    @Test
    void aBodyOverTheLimitIs413() {
        byte[] thirtyMegabytes = new byte[30 * 1024 * 1024];
        AudioUploadException tooLarge = assertThrows(AudioUploadException.class,
                () -> read(new MultipartForm().file("long.wav", thirtyMegabytes).build()));
        assertEquals(AudioUploadProblem.TOO_LARGE, tooLarge.problem());
        assertEquals(413, tooLarge.problem().status());
    }

    @Test
    void thirtyMegabytesOfWavAreMeasuredWhenTheLimitAllows() throws Exception {
        int dataBytes = 30 * 1024 * 1024;
        ByteBuffer wav = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        wav.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes).put("WAVEfmt ".getBytes(StandardCharsets.US_ASCII))
                .putInt(16).putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000).putShort((short) 2)
                .putShort((short) 16).put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
        AudioUploadReader roomy = new AudioUploadReader(new AudioDurationReader(), 64L * 1024 * 1024, false);
        AudioUpload upload = read(roomy, "multipart/form-data; boundary=" + BOUNDARY, new MultipartForm().file("long.wav", wav.array()).build());
        assertEquals(dataBytes / 32_000.0, upload.duration().seconds(), 1e-9);
    }

    @Test
    void aFormWithoutAFileIs400() {
        AudioUploadException missing = assertThrows(AudioUploadException.class,
                () -> read(new MultipartForm().field("model", "whisper-1").field("language", "en").build()));
        assertEquals(AudioUploadProblem.MISSING_FILE, missing.problem());
        assertEquals(400, missing.problem().status());
        assertEquals("file", missing.problem().param());
    }

    @Test
    void aBrokenBoundaryIs400() {
        byte[] form = new MultipartForm().field("model", "whisper-1").file("a.wav", AudioFixtures.named("pcm8-mono-8000.wav").bytes()).build();
        String otherBoundary = "multipart/form-data; boundary=not-the-one-in-the-body";
        AudioUploadException wrong = assertThrows(AudioUploadException.class, () -> read(reader(), otherBoundary, form));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, wrong.problem());

        byte[] unclosed = Arrays.copyOf(form, form.length - BOUNDARY.length() - 8);
        AudioUploadException cut = assertThrows(AudioUploadException.class, () -> read(unclosed));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, cut.problem());
        assertEquals(400, cut.problem().status());

        AudioUploadException noBoundary = assertThrows(AudioUploadException.class, () -> read(reader(), "multipart/form-data", form));
        assertEquals(400, noBoundary.problem().status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"multipart/form-data; boundary", "multipart/form-data; boundary=", "multipart/form-data; boundary=\""})
    void aBoundaryWithNoValueIs400(String contentType) {
        byte[] form = new MultipartForm().file("a.wav", AudioFixtures.named("pcm8-mono-8000.wav").bytes()).build();
        AudioUploadException empty = assertThrows(AudioUploadException.class, () -> read(reader(), contentType, form));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, empty.problem());
        assertEquals(400, empty.problem().status());
    }

    @Test
    void theMediaTypeIsReadInAnyCaseAndTheBoundaryAsSent() throws Exception {
        byte[] form = new MultipartForm().file("a.wav", AudioFixtures.named("pcm8-mono-8000.wav").bytes()).build();
        AudioUpload upload = read(reader(), "Multipart/Form-Data; boundary=" + BOUNDARY, form);
        assertEquals(AudioFormat.WAV, upload.duration().format());
        AudioUploadException otherCase = assertThrows(AudioUploadException.class,
                () -> read(reader(), "multipart/form-data; boundary=" + BOUNDARY.toUpperCase(Locale.ROOT), form));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, otherCase.problem());
    }

    @Test
    void aFormWithTooManyPartsIs400AndLeavesNoPartBehind() {
        // The decoder makes the part past its limit, with a copy of its bytes, before refusing to keep it.
        MultipartForm form = new MultipartForm();
        for (int i = 0; i < 100; i++) {
            form.field("extra" + i, "a value of the part that is copied out of the body " + i);
        }
        byte[] body = form.file("a.wav", AudioFixtures.named("pcm8-mono-8000.wav").bytes()).build();
        AudioUploadException tooMany = assertThrows(AudioUploadException.class, () -> read(body));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, tooMany.problem());
        assertEquals("the multipart/form-data body is malformed: more than 64 parts", tooMany.getMessage());
        for (int i = 0; i < 20; i++) {
            assertThrows(AudioUploadException.class, () -> read(body)); // leaks enough for the detector to see
        }
    }

    @Test
    void anUnknownOrIllegalCharsetIs400() {
        byte[] form = new MultipartForm().field("model", "whisper-1").file("a.wav", AudioFixtures.named("pcm8-mono-8000.wav").bytes()).build();
        AudioUploadException unknown = assertThrows(AudioUploadException.class,
                () -> read(reader(), MultipartForm.CONTENT_TYPE + "; charset=no-such-charset", form));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, unknown.problem());

        String illegal = new String(form, StandardCharsets.ISO_8859_1)
                .replace("Content-Type: application/octet-stream", "Content-Type: audio/wav; charset=name file");
        AudioUploadException inAPart = assertThrows(AudioUploadException.class,
                () -> read(illegal.getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals(AudioUploadProblem.MALFORMED_MULTIPART, inAPart.problem());
    }

    @Test
    void aBodyThatIsNotAFormIs400() {
        AudioUploadException json = assertThrows(AudioUploadException.class,
                () -> read(reader(), "application/json", "{\"file\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(AudioUploadProblem.NOT_MULTIPART, json.problem());
        assertEquals(400, json.problem().status());
    }

    @Test
    void speechSecondsReplaceTheDurationWhenVoiceActivityDetectionIsOn() throws Exception {
        byte[] clip = AudioFixtures.named("pcm16-mono-8000-list-chunk.wav").bytes();
        byte[] padded = padWithSilence(clip, 5 * 8000 * 2);
        AudioUploadReader vad = new AudioUploadReader(new AudioDurationReader(), AudioUploadReader.DEFAULT_MAX_BODY_BYTES, true);
        AudioUpload upload = read(vad, "multipart/form-data; boundary=" + BOUNDARY, new MultipartForm().file("padded.wav", padded).build());
        assertEquals(2.085 + 10, upload.duration().seconds(), 0.01);
        double speech = upload.speechSeconds().orElseThrow();
        assertTrue(speech < 2.2, speech + " s of speech");
        assertEquals(speech, upload.clip().seconds());

        AudioUpload mp3 = read(vad, "multipart/form-data; boundary=" + BOUNDARY,
                new MultipartForm().file("a.mp3", AudioFixtures.named("cbr.mp3").bytes()).build());
        assertTrue(mp3.speechSeconds().isEmpty(), "compressed audio keeps its duration");
        assertEquals(mp3.duration().seconds(), mp3.clip().seconds());
    }

    /** The 16-bit mono clip with {@code bytes} of digital silence before and after its samples. */
    private static byte[] padWithSilence(byte[] wav, int bytes) {
        int dataChunk = indexOf(wav, "data".getBytes(StandardCharsets.US_ASCII));
        int samples = wav.length - dataChunk - 8;
        ByteBuffer padded = ByteBuffer.allocate(44 + samples + 2 * bytes).order(ByteOrder.LITTLE_ENDIAN);
        padded.put(wav, 0, 36).putInt(4, padded.capacity() - 8).put("data".getBytes(StandardCharsets.US_ASCII))
                .putInt(samples + 2 * bytes).position(44 + bytes);
        padded.put(wav, dataChunk + 8, samples);
        return padded.array();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }
}
