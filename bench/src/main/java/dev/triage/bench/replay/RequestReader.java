package dev.triage.bench.replay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.bench.workload.AudioFile;
import dev.triage.features.ChatBody;
import dev.triage.features.PromptTokens;
import dev.triage.proxy.api.Json;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.multipart.Attribute;
import io.netty.handler.codec.http.multipart.DefaultHttpDataFactory;
import io.netty.handler.codec.http.multipart.FileUpload;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.handler.codec.http.multipart.InterfaceHttpData;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.OptionalInt;

/**
 * Turns a request body into a {@link ReplayRequest}. It reads only the body, never a header, so a
 * proxy's own headers cannot change what the backend does.
 *
 * <p>Chat and completions, OpenAI's and Ollama's: the prompt is what {@link ChatBody#prompt} extracts,
 * its recorded answer length comes from the {@link AnswerBook}, and the request's own limit
 * ({@code max_tokens}, Ollama's {@code options.num_predict} and kin) cuts it short. A prompt the book
 * does not know gets its limit, or the default length. Ollama's API streams unless {@code "stream"}
 * is false; OpenAI's, only when it is true.
 *
 * <p>Transcriptions: an upload whose bytes are those of an audio file of the workload (same
 * SHA-256) gets that file's recorded transcript length. Any other upload's size sets the work,
 * {@code bytes / audioBytesPerSecond} seconds of speech at {@code tokensPerAudioSecond}, rounded up.
 * The audio itself is not decoded.
 */
final class RequestReader {

    private final ReplayBackendSettings settings;

    RequestReader(ReplayBackendSettings settings) {
        this.settings = settings;
    }

    ReplayRequest completion(FullHttpRequest request, ReplayRequest.Api api) throws BadRequestException {
        JsonNode body;
        try {
            body = Json.readTree(request.content());
        } catch (IOException e) {
            throw new BadRequestException("body: not JSON (" + Json.problem(e) + ")", null);
        }
        if (body == null || !body.isObject()) {
            throw new BadRequestException("body: expected a JSON object", null);
        }
        String prompt = ChatBody.prompt(body).text();
        OptionalInt limit = ChatBody.maxOutputTokens(body, api.ollama() ? ChatBody.Api.OLLAMA : ChatBody.Api.OPENAI);
        OptionalInt recorded = settings.answers().answerTokens(prompt);
        int tokens;
        boolean cutShort;
        if (recorded.isPresent()) {
            tokens = limit.isPresent() ? Math.min(recorded.getAsInt(), limit.getAsInt()) : recorded.getAsInt();
            cutShort = tokens < recorded.getAsInt();
        } else if (limit.isPresent()) {
            tokens = limit.getAsInt();
            cutShort = true;
        } else {
            tokens = settings.defaultAnswerTokens();
            cutShort = false;
        }
        JsonNode stream = body.path("stream");
        if (!stream.isMissingNode() && !stream.isNull() && !stream.isBoolean()) {
            throw new BadRequestException("stream: " + stream + " (expected: true or false)", "stream");
        }
        return new ReplayRequest(api, tokens, cutShort, PromptTokens.approximate(prompt), stream.asBoolean(api.ollama()),
                body.path("stream_options").path("include_usage").asBoolean(false), false,
                body.path("model").asText(settings.model()));
    }

    ReplayRequest transcription(FullHttpRequest request) throws BadRequestException {
        HttpPostRequestDecoder decoder;
        try {
            decoder = new HttpPostRequestDecoder(new DefaultHttpDataFactory(false), request);
        } catch (HttpPostRequestDecoder.ErrorDataDecoderException e) {
            throw new BadRequestException("body: not multipart/form-data (" + e.getMessage() + ")", null);
        }
        try {
            if (!decoder.isMultipart()) {
                throw new BadRequestException("body: expected multipart/form-data with a file", null);
            }
            FileUpload audio = null;
            String format = "json";
            String model = settings.model();
            for (InterfaceHttpData part : decoder.getBodyHttpDatas()) {
                if (part instanceof FileUpload file && part.getName().equals("file")) {
                    audio = file;
                } else if (part instanceof Attribute attribute && part.getName().equals("response_format")) {
                    format = attribute.getValue();
                } else if (part instanceof Attribute attribute && part.getName().equals("model")) {
                    model = attribute.getValue();
                }
            }
            if (audio == null) {
                throw new BadRequestException("file: missing (expected: the audio as a file part named \"file\")", "file");
            }
            if (!format.equals("json") && !format.equals("text")) {
                throw new BadRequestException("response_format: " + format + " (expected: json or text)", "response_format");
            }
            int tokens = transcriptTokens(audio);
            return new ReplayRequest(ReplayRequest.Api.TRANSCRIPTION, tokens, false, 0, false, false, format.equals("text"), model);
        } catch (HttpPostRequestDecoder.ErrorDataDecoderException | IOException e) {
            throw new BadRequestException("body: malformed multipart/form-data (" + e.getMessage() + ")", null);
        } finally {
            decoder.destroy();
        }
    }

    /**
     * The recorded length for a known file, else the size rule. Hashing runs on the event loop, like
     * the multipart decoding before it: well under a millisecond for a clip of a few hundred kilobytes.
     */
    private int transcriptTokens(FileUpload audio) throws IOException {
        OptionalInt recorded = settings.answers().transcriptTokens(AudioFile.sha256(ByteBuffer.wrap(audio.get())));
        if (recorded.isPresent()) {
            return recorded.getAsInt();
        }
        double speechSeconds = audio.length() / settings.audioBytesPerSecond();
        return (int) Math.ceil(speechSeconds * settings.tokensPerAudioSecond());
    }

    /** A request the backend cannot serve: answered 400 with an OpenAI-style error. */
    static final class BadRequestException extends Exception {
        private final String param;

        BadRequestException(String message, String param) {
            super(message);
            this.param = param;
        }

        String param() {
            return param;
        }
    }
}
