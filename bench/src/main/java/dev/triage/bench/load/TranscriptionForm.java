package dev.triage.bench.load;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The multipart/form-data body an OpenAI client sends to {@code /v1/audio/transcriptions}: the parts
 * {@code model}, {@code response_format} ({@code json}) and {@code file} (the audio with its name and
 * a content type that follows from the name).
 *
 * <pre>{@code
 * HttpRequest.newBuilder(uri).header("content-type", TranscriptionForm.CONTENT_TYPE)
 *         .POST(BodyPublishers.ofByteArray(TranscriptionForm.body("whisper-1", "jfk.wav", bytes)));
 * }</pre>
 */
public final class TranscriptionForm {

    private static final String BOUNDARY = "----triage-bench-form-Q2hlY2tzdW0gaXQ";
    public static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;

    private static final Map<String, String> AUDIO_TYPES = Map.of("wav", "audio/wav", "flac", "audio/flac", "mp3", "audio/mpeg",
            "ogg", "audio/ogg", "opus", "audio/ogg", "m4a", "audio/mp4", "webm", "audio/webm");

    private TranscriptionForm() {}

    public static byte[] body(String model, String fileName, byte[] audio) {
        ByteArrayOutputStream form = new ByteArrayOutputStream(audio.length + 512);
        write(form, field("model", model) + field("response_format", "json") + "--" + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName + "\"\r\nContent-Type: "
                + contentType(fileName) + "\r\n\r\n");
        form.writeBytes(audio);
        write(form, "\r\n--" + BOUNDARY + "--\r\n");
        return form.toByteArray();
    }

    /** The file's media type by its extension; {@code application/octet-stream} for one not listed. */
    static String contentType(String fileName) {
        String extension = fileName.substring(fileName.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        return AUDIO_TYPES.getOrDefault(extension, "application/octet-stream");
    }

    private static String field(String name, String value) {
        return "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
    }

    private static void write(ByteArrayOutputStream form, String text) {
        form.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }
}
