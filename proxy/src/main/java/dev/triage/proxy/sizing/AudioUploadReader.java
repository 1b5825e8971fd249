package dev.triage.proxy.sizing;

import dev.triage.features.audio.AudioDuration;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.features.audio.SpeechActivity;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.multipart.Attribute;
import io.netty.handler.codec.http.multipart.DefaultHttpDataFactory;
import io.netty.handler.codec.http.multipart.FileUpload;
import io.netty.handler.codec.http.multipart.HttpData;
import io.netty.handler.codec.http.multipart.HttpPostMultipartRequestDecoder;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.handler.codec.http.multipart.InterfaceHttpData;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Reads an OpenAI-style audio upload ({@code multipart/form-data} with {@code file}, {@code model},
 * {@code language}, {@code response_format}, {@code stream}) with Netty's multipart decoder, and
 * measures the audio's duration.
 *
 * <p>Threading: {@link #read} takes milliseconds (it copies the body once, and counts an MP3's
 * frames), so run it on a bounded executor, never on an event loop, and hand the result back to the
 * channel's loop. Instances are thread-safe.
 *
 * <p>Buffers: the caller keeps ownership of {@code body}. It is neither released nor retained, and
 * its indexes and bytes are left as they were, so the caller can forward it byte for byte afterwards
 * (and must release it once it has). Everything the decoder allocates is released before
 * {@code read} returns.
 *
 * <pre>{@code
 * AudioUploadReader reader = new AudioUploadReader(new AudioDurationReader(), AudioUploadReader.DEFAULT_MAX_BODY_BYTES, vad);
 * executor.execute(() -> {
 *     try {
 *         AudioUpload upload = reader.read(request.headers(), request.content());
 *         Estimate estimate = estimator.estimate(upload.clip());
 *         ctx.executor().execute(() -> schedule(request, estimate, upload.durationEstimated()));
 *     } catch (AudioUploadException e) {
 *         ctx.executor().execute(() -> answerError(request, e.problem(), e.getMessage()));
 *     }
 * });
 * }</pre>
 */
public final class AudioUploadReader {

    /** OpenAI's limit on a transcription upload: 25 MB. */
    public static final long DEFAULT_MAX_BODY_BYTES = 25L * 1024 * 1024;

    private static final String FORM_DATA = "multipart/form-data";
    /** An audio form has five fields and a file; a body with many more is not one. */
    private static final int MAX_FIELDS = 64;
    /*
     * Bytes the decoder may hold while a part is still open (Netty's default). With the whole body
     * offered at once, a part left open at the end means the closing boundary is missing.
     */
    private static final int MAX_BUFFERED_BYTES = 1024;

    private final AudioDurationReader durations;
    private final long maxBodyBytes;
    private final boolean measureSpeech;

    /**
     * @param durations reads the audio's duration
     * @param maxBodyBytes the largest body accepted ({@code --max-audio-body}); larger ones are refused
     *     with {@link AudioUploadProblem#TOO_LARGE}
     * @param measureSpeech measure speech-active seconds of PCM WAV uploads ({@code --audio-vad})
     */
    public AudioUploadReader(AudioDurationReader durations, long maxBodyBytes, boolean measureSpeech) {
        this.durations = Objects.requireNonNull(durations, "durations");
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("max-audio-body: " + maxBodyBytes + " (expected: > 0)");
        }
        this.maxBodyBytes = maxBodyBytes;
        this.measureSpeech = measureSpeech;
    }

    /**
     * The headers with the Content-Type's media type in lower case, as Netty's decoder reads it (media
     * types are case-insensitive; the boundary after them is not, and is kept as sent).
     *
     * @throws AudioUploadException when the body is not a multipart form
     */
    private static HttpHeaders formHeaders(HttpHeaders headers) throws AudioUploadException {
        String contentType = headers.get(HttpHeaderNames.CONTENT_TYPE, "");
        int parameters = contentType.indexOf(';');
        String mediaType = (parameters < 0 ? contentType : contentType.substring(0, parameters)).trim();
        if (!mediaType.equalsIgnoreCase(FORM_DATA)) {
            throw new AudioUploadException(AudioUploadProblem.NOT_MULTIPART, "Content-Type " + contentType);
        }
        return headers.copy().set(HttpHeaderNames.CONTENT_TYPE, FORM_DATA + (parameters < 0 ? "" : contentType.substring(parameters)));
    }

    /**
     * Reads the upload whose headers and complete body are given.
     *
     * @throws AudioUploadException when the body is larger than the limit, is not a multipart form,
     *     does not match its boundary, has no {@code file} part, or a {@code priority} that is not an
     *     integer
     */
    public AudioUpload read(HttpHeaders headers, ByteBuf body) throws AudioUploadException {
        if (body.readableBytes() > maxBodyBytes) {
            throw new AudioUploadException(AudioUploadProblem.TOO_LARGE,
                    body.readableBytes() + " bytes (limit: " + maxBodyBytes + ")");
        }
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/", formHeaders(headers));
        boolean bounded;
        try {
            bounded = HttpPostRequestDecoder.isMultipart(request);
        } catch (DecoderException | IndexOutOfBoundsException e) {
            // Netty reads "boundary", "boundary=" and "boundary=\"" by failing in three different ways.
            throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, "the Content-Type's boundary has no value");
        }
        if (!bounded) {
            throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, "the Content-Type names no boundary");
        }
        // The body is offered after construction, not with it: a decoder whose constructor throws
        // cannot be destroyed, and would leak the copy it made.
        PartsMade parts = new PartsMade();
        HttpPostMultipartRequestDecoder decoder;
        try {
            decoder = new HttpPostMultipartRequestDecoder(parts, request, StandardCharsets.UTF_8, MAX_FIELDS, MAX_BUFFERED_BYTES);
        } catch (DecoderException | IllegalArgumentException e) {
            // Netty wraps an illegal charset name in a DecoderException, but lets an unknown one
            // (UnsupportedCharsetException) through; a part's Content-Type does the reverse.
            throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, e.getMessage());
        }
        try {
            // The decoder copies what it is offered into a buffer of its own; a duplicate keeps the
            // caller's indexes and reference count untouched.
            decoder.offer(new DefaultLastHttpContent(body.duplicate()));
            if (decoder.currentPartialHttpData() != null) {
                throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, "a part is not closed by the boundary");
            }
            return readForm(decoder);
        } catch (HttpPostRequestDecoder.TooManyFormFieldsException e) {
            throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, "more than " + MAX_FIELDS + " parts");
        } catch (DecoderException | IllegalArgumentException e) {
            throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, e.getMessage());
        } finally {
            decoder.destroy();
            parts.releaseAll();
        }
    }

    /**
     * Makes the decoder's parts in memory and keeps hold of each. The decoder's {@code destroy()}
     * releases only the parts it kept: not one a body left open by ending early, nor the part past
     * {@link #MAX_FIELDS}, which it makes, fills with a copy of its bytes, and then refuses.
     */
    private static final class PartsMade extends DefaultHttpDataFactory {

        private final List<HttpData> made = new ArrayList<>();

        PartsMade() {
            super(false, StandardCharsets.UTF_8);
        }

        @Override
        public Attribute createAttribute(HttpRequest request, String name) {
            return kept(super.createAttribute(request, name));
        }

        @Override
        public Attribute createAttribute(HttpRequest request, String name, long definedSize) {
            return kept(super.createAttribute(request, name, definedSize));
        }

        @Override
        public Attribute createAttribute(HttpRequest request, String name, String value) {
            return kept(super.createAttribute(request, name, value));
        }

        @Override
        public FileUpload createFileUpload(HttpRequest request, String name, String filename, String contentType,
                String contentTransferEncoding, Charset charset, long size) {
            return kept(super.createFileUpload(request, name, filename, contentType, contentTransferEncoding, charset, size));
        }

        private <T extends HttpData> T kept(T part) {
            made.add(part);
            return part;
        }

        /** Releases every part the decoder has not released itself. */
        void releaseAll() {
            for (HttpData part : made) {
                if (part.refCnt() > 0) {
                    part.release();
                }
            }
        }
    }

    private AudioUpload readForm(HttpPostMultipartRequestDecoder decoder) throws AudioUploadException {
        InterfaceHttpData file = decoder.getBodyHttpData("file");
        if (!(file instanceof HttpData)) {
            if (decoder.getBodyHttpDatas().isEmpty()) {
                throw new AudioUploadException(AudioUploadProblem.MALFORMED_MULTIPART, "no part ends with its boundary");
            }
            throw new AudioUploadException(AudioUploadProblem.MISSING_FILE, null);
        }
        HttpData fileData = (HttpData) file;
        ByteBuffer audio = audioBytes(fileData);
        AudioDuration duration = durations.read(audio);
        OptionalDouble speech = measureSpeech ? SpeechActivity.speechSeconds(audio) : OptionalDouble.empty();
        return new AudioUpload(field(decoder, "model"), field(decoder, "language"), field(decoder, "response_format"),
                "true".equalsIgnoreCase(field(decoder, "stream")), priority(decoder),
                file instanceof FileUpload upload ? upload.getFilename() : "", audio.remaining(), duration, speech);
    }

    /** A view of the part's bytes in the decoder's memory (no copy when they are one buffer). */
    private static ByteBuffer audioBytes(HttpData file) {
        try {
            return file.getByteBuf().nioBuffer();
        } catch (IOException e) {
            throw new IllegalStateException("in-memory form data cannot fail to read", e);
        }
    }

    private static int priority(HttpPostMultipartRequestDecoder decoder) throws AudioUploadException {
        String priority = field(decoder, "priority");
        if (priority.isEmpty()) {
            return 0;
        }
        try {
            return Integer.parseInt(priority);
        } catch (NumberFormatException e) {
            throw new AudioUploadException(AudioUploadProblem.INVALID_PRIORITY, "'" + priority + "'");
        }
    }

    private static String field(HttpPostMultipartRequestDecoder decoder, String name) {
        InterfaceHttpData data = decoder.getBodyHttpData(name);
        if (!(data instanceof Attribute attribute)) {
            return "";
        }
        try {
            return attribute.getValue().strip();
        } catch (IOException e) {
            throw new IllegalStateException("in-memory form data cannot fail to read", e);
        }
    }
}
