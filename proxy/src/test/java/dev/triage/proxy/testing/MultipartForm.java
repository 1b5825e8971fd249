package dev.triage.proxy.testing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** A multipart/form-data body as OpenAI's clients send it to {@code /v1/audio/transcriptions}. */
public final class MultipartForm {

    public static final String BOUNDARY = "----triage-test-7MA4YWxkTrZu0gW";
    public static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;

    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    public MultipartForm field(String name, String value) {
        write("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n");
        return this;
    }

    public MultipartForm file(String fileName, byte[] bytes) {
        write("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n");
        body.writeBytes(bytes);
        write("\r\n");
        return this;
    }

    public byte[] build() {
        write("--" + BOUNDARY + "--\r\n");
        return body.toByteArray();
    }

    private void write(String text) {
        body.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }
}
