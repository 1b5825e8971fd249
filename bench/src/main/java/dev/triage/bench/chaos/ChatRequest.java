package dev.triage.bench.chaos;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A request on one of the routes Triage schedules by its prompt, with a body the run can recognise
 * (its prompt carries the run's canary) and an answer it can check.
 *
 * @param maxTokens the answer's length: the replay backend generates exactly this many tokens
 */
record ChatRequest(Route route, boolean stream, int maxTokens, byte[] body) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectWriter COMPACT = JSON.writer();
    private static final ObjectWriter PRETTY = JSON.writerWithDefaultPrettyPrinter();
    private static final ObjectWriter ASCII = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build().writer();

    private static final String[] WORDS = {"queue", "latency", "the", "of", "shortest", "job", "first", "prompt", "essay",
        "explain", "why", "résumé", "naïve", "中文", "日本語", "emoji 🚀", "tab\there", "quote\"d", "back\\slash", "line\nbreak",
        "Ünïcödé", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "zero-width\u200bjoiner", "control\u0001char"};

    /** The four chat APIs: OpenAI's chat and completions, Ollama's chat and generate. */
    enum Route {
        CHAT("/v1/chat/completions", false),
        COMPLETION("/v1/completions", false),
        OLLAMA_CHAT("/api/chat", true),
        OLLAMA_GENERATE("/api/generate", true);

        final String path;
        final boolean ollama;

        Route(String path, boolean ollama) {
            this.path = path;
            this.ollama = ollama;
        }
    }

    /** A request on a random route, with a random prompt and formatting, streamed or not as asked. */
    static ChatRequest random(Op op, boolean stream, int maxTokens) {
        int r = op.random.nextInt(20);
        Route route = r < 12 ? Route.CHAT : r < 15 ? Route.COMPLETION : r < 18 ? Route.OLLAMA_CHAT : Route.OLLAMA_GENERATE;
        return of(op, route, stream, maxTokens);
    }

    static ChatRequest of(Op op, Route route, boolean stream, int maxTokens) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", "replay");
        String prompt = prompt(op);
        if (route == Route.CHAT || route == Route.OLLAMA_CHAT) {
            var messages = body.putArray("messages");
            if (op.chance(0.5)) {
                messages.addObject().put("role", "system").put("content", "Be brief.");
            }
            messages.addObject().put("role", "user").put("content", prompt);
        } else {
            body.put("prompt", prompt);
        }
        if (route.ollama) {
            body.putObject("options").put("num_predict", maxTokens);
        } else {
            body.put("max_tokens", maxTokens);
        }
        body.put("stream", stream);
        try {
            ObjectWriter writer = op.random.nextInt(4) == 0 ? PRETTY : op.random.nextInt(3) == 0 ? ASCII : COMPACT;
            return new ChatRequest(route, stream, maxTokens, writer.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new IllegalStateException("a tree of strings and numbers always writes", e);
        }
    }

    /** The run's canary and some words, mostly a few dozen, now and then tens of kilobytes. */
    static String prompt(Op op) {
        int words = op.chance(0.03) ? op.between(5_000, 20_000) : op.between(1, 80);
        StringBuilder prompt = new StringBuilder(op.target.canary()).append(' ').append(op.id);
        for (int i = 0; i < words; i++) {
            prompt.append(' ').append(op.pick(WORDS));
        }
        return prompt.toString();
    }

    /** The request, sized by {@code content-length}, over HTTP/1.1. */
    String head(Op op, String mark, String... headers) {
        return headIn(op, "HTTP/1.1", mark, headers);
    }

    /** The request, sized by {@code content-length}, in this protocol version. */
    String headIn(Op op, String version, String mark, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "content-type: application/json";
        all[1] = "content-length: " + body.length;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return op.head("POST", route.path, version, mark, all);
    }

    /** The request with its body sent in chunks of random sizes. */
    byte[] chunked(Op op, String mark, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "content-type: application/json";
        all[1] = "transfer-encoding: chunked";
        System.arraycopy(headers, 0, all, 2, headers.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 256);
        out.writeBytes(op.head("POST", route.path, "HTTP/1.1", mark, all).getBytes(StandardCharsets.ISO_8859_1));
        int at = 0;
        while (at < body.length) {
            int size = Math.min(body.length - at, op.between(1, 4096));
            out.writeBytes((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, size);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            at += size;
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** Sends it and checks the answer, with the body expected at the backend byte for byte. */
    Verdict send(Op op, HttpConnection connection, String mark, String... headers) throws IOException {
        op.target.ledger().expect(mark, body);
        if (op.chance(0.15)) {
            connection.write(chunked(op, mark, headers));
        } else {
            connection.write(head(op, mark, headers), body);
        }
        return checkAnswer(connection.readResponse());
    }

    /** A whole, well-formed answer from the backend, scheduled by Triage. */
    Verdict checkAnswer(HttpConnection.Response response) {
        if (response == null) {
            return Verdict.not("connection closed without an answer");
        }
        if (response.status() != 200) {
            return Verdict.not(response.status() + " " + abbreviate(response.text()));
        }
        if (!response.has("x-triage-queue-ms")) {
            return Verdict.not("200 without x-triage-queue-ms: not scheduled");
        }
        if (!response.complete()) {
            return Verdict.not("200 cut short (" + response.framing() + ")");
        }
        if (!wellEnded(response.text())) {
            return Verdict.not("200 ill-formed " + (stream ? "stream" : "body") + ": " + abbreviate(tail(response.text())));
        }
        return Verdict.as("200 complete");
    }

    /** Whether a body is an answer of this API brought to its end: OpenAI's {@code [DONE]}, Ollama's {@code "done": true}. */
    boolean wellEnded(String text) {
        if (stream) {
            if (!route.ollama) {
                return text.endsWith("data: [DONE]\n\n");
            }
            String[] lines = text.strip().split("\n");
            return parse(lines[lines.length - 1]).path("done").asBoolean(false);
        }
        JsonNode answer = parse(text);
        return route.ollama ? answer.path("done").asBoolean(false) : answer.path("choices").isArray();
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }

    private static String tail(String text) {
        return text.length() <= 60 ? text : text.substring(text.length() - 60);
    }

    static String abbreviate(String text) {
        String line = text.replace('\n', ' ').replace('\r', ' ');
        return line.length() <= 80 ? line : line.substring(0, 80) + "...";
    }
}
