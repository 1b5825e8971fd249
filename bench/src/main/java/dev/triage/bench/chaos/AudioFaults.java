package dev.triage.bench.chaos;

import dev.triage.bench.load.TranscriptionForm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Speech uploads, which Triage reads to size them by their duration: good ones (served), broken or
 * malicious files in a good form (read within bounds of memory and time whatever they declare; then
 * served by their size, or refused; never a failure of Triage's own), broken forms (400), and uploads
 * past {@code --max-audio-body} (413).
 */
final class AudioFaults {

    private static final String PATH = "/v1/audio/transcriptions";

    private AudioFaults() {}

    /** A recording or a tone: transcribed. */
    static Verdict valid(Op op) throws IOException {
        AudioSamples.Sample sample = op.target.audio().valid(op);
        HttpConnection.Response response = upload(op, TranscriptionForm.CONTENT_TYPE,
                TranscriptionForm.body("whisper-1", sample.fileName(), sample.bytes()));
        if (response == null) {
            return Verdict.not(sample.what() + ": closed without an answer");
        }
        boolean transcribed = response.status() == 200 && response.complete() && response.has("x-triage-queue-ms")
                && response.text().contains("\"text\"");
        return Verdict.of(transcribed, transcribed ? "200 transcribed" : sample.what() + ": " + BackendFaults.describe(response));
    }

    /**
     * A file made to break a duration reader, in a well-formed upload: answered soon, by the backend
     * (Triage could not read the duration, so it sized the upload by its bytes) or with Triage's 400.
     */
    static Verdict hostile(Op op) throws IOException {
        AudioSamples.Sample sample = op.target.audio().hostile(op);
        long start = System.nanoTime();
        HttpConnection.Response response = upload(op, TranscriptionForm.CONTENT_TYPE,
                TranscriptionForm.body("whisper-1", sample.fileName(), sample.bytes()));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        if (response == null) {
            return Verdict.not(sample.what() + ": closed without an answer");
        }
        String queued = response.header("x-triage-queue-ms");
        if (queued != null) {
            took = took.minusMillis(Math.round(Double.parseDouble(queued))); // its wait for a slot is not the reading's
        }
        if (took.compareTo(ChaosSettings.SLACK) > 0) {
            return Verdict.not(sample.what() + ": answered only after " + took.toMillis() + " ms");
        }
        boolean served = response.status() == 200 && response.has("x-triage-queue-ms") && response.complete();
        boolean refused = response.status() == 400 && !response.has("x-triage-queue-ms");
        return Verdict.of(served || refused, served ? "200, served" : refused ? "400 from Triage"
                : sample.what() + ": " + BackendFaults.describe(response));
    }

    /** An upload whose form is broken: a 400, from Triage or from the backend it was passed to. */
    static Verdict brokenForm(Op op) throws IOException {
        byte[] wav = op.target.audio().valid(op).bytes();
        String boundary = "----chaos-" + op.id;
        String[][] forms = {
            {"multipart/form-data", "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n"},
            {"multipart/form-data; boundary=other", "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; "
                    + "filename=\"a.wav\"\r\n\r\n"},
            {"multipart/form-data; boundary=" + boundary, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; "
                    + "filename=\"a.wav\"\r\n\r\n"},
            {"multipart/form-data; boundary=" + boundary, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n"
                    + "whisper-1\r\n--" + boundary + "--\r\n"},
            {"application/json", "{\"file\": \"" + op.target.canary() + "\"}"},
            {"multipart/form-data; boundary=" + boundary, ""},
            {"multipart/form-data; boundary=" + boundary, "--" + boundary + "\r\nno headers and no blank line" + "x".repeat(100)},
            {"multipart/form-data; boundary=\"" + "b".repeat(5_000) + "\"", "--" + "b".repeat(5_000) + "\r\n"},
        };
        int which = op.random.nextInt(forms.length);
        byte[] head = forms[which][1].getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = which <= 2 ? concat(head, wav) : head; // the first three never close their boundary
        HttpConnection.Response response = upload(op, forms[which][0], body);
        if (response == null) {
            return Verdict.not("form " + which + ": closed without an answer");
        }
        boolean fromBackend = response.has("x-triage-queue-ms");
        return Verdict.of(response.status() == 400 && response.complete(), response.status() == 400
                ? "400 from " + (fromBackend ? "the backend" : "Triage") : "form " + which + ": " + BackendFaults.describe(response));
    }

    /** An upload past the audio body limit: 413, never forwarded. */
    static Verdict oversized(Op op) throws IOException {
        byte[] audio = new byte[ChaosSettings.MAX_AUDIO_BODY_BYTES + op.between(1, 1 << 20)];
        byte[] form = TranscriptionForm.body("whisper-1", "big.wav", audio);
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        try (HttpConnection connection = op.connect()) {
            try {
                connection.write(op.head("POST", PATH, "HTTP/1.1", mark, "content-type: " + TranscriptionForm.CONTENT_TYPE,
                        "content-length: " + form.length), form);
            } catch (IOException e) {
                // refused before the whole upload was sent: the answer may still be there to read
            }
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not("closed without an answer");
            }
            return Verdict.of(response.status() == 413, BackendFaults.describe(response));
        }
    }

    private static HttpConnection.Response upload(Op op, String contentType, byte[] body) throws IOException {
        String mark = op.mark(0);
        op.target.ledger().expect(mark, body);
        try (HttpConnection connection = op.connect()) {
            connection.write(op.head("POST", PATH, "HTTP/1.1", mark, "content-type: " + contentType,
                    "content-length: " + body.length), body);
            return connection.readResponse();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
