package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.features.audio.AudioFixtures;
import dev.triage.proxy.testing.MultipartForm;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The multipart upload reader, voice-activity detection on, on whatever body a coverage-guided fuzzer
 * writes, seeded with a form for every audio fixture: each body is either read or refused with an
 * {@link AudioUploadException}, the caller's buffer comes back as it went in, and nothing the decoder
 * allocated leaks (the leak detector runs at paranoid level and fails the class).
 */
class AudioUploadReaderFuzzTest {

    private static final AudioUploadReader READER = new AudioUploadReader(new AudioDurationReader(),
            AudioUploadReader.DEFAULT_MAX_BODY_BYTES, true);
    private static final HttpHeaders HEADERS = new DefaultHttpHeaders().set("content-type", MultipartForm.CONTENT_TYPE);

    static Stream<byte[]> forms() {
        return AudioFixtures.stream().map(fixture -> new MultipartForm().field("model", "whisper-1").field("language", "en")
                .field("priority", "2").file(fixture.file(), fixture.bytes()).build());
    }

    @MethodSource("forms")
    @DictionaryFile(resourcePath = "multipart.dict")
    @FuzzTest
    void everyBodyIsReadOrRefusedAndNothingLeaks(byte[] body) {
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(body.length).writeBytes(body);
        try {
            try {
                AudioUpload upload = READER.read(HEADERS, buffer);
                assertTrue(upload.fileBytes() <= body.length, upload.toString());
            } catch (AudioUploadException refused) {
                assertEquals(400, refused.problem().status(), refused.getMessage());
            }
            assertEquals(1, buffer.refCnt(), "the caller's reference is neither released nor retained");
            assertEquals(0, buffer.readerIndex());
            assertEquals(body.length, buffer.writerIndex());
        } finally {
            if (buffer.refCnt() > 0) {
                buffer.release();
            }
        }
    }
}
