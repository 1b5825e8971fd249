package dev.triage.bench.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Scheduled requests whose body Triage must read to size them, and cannot, or should not trust:
 * malformed JSON (a 400 from Triage, never forwarded), JSON nested deeper than any chat, and JSON of
 * odd types and numbers (a 400, or forwarded untouched for the backend to judge; never a 5xx of
 * Triage's own).
 */
final class BodyFaults {

    private BodyFaults() {}

    /** Not JSON, or JSON that is not an object: Triage answers 400 and forwards nothing. */
    static Verdict malformed(Op op) throws IOException {
        String prompt = "{\"role\":\"user\",\"content\":\"" + op.target.canary() + "\"}";
        byte[][] bodies = {
            ("{\"messages\": [" + prompt).getBytes(StandardCharsets.UTF_8),
            ("{\"messages\": [" + prompt + "], \"max_tokens\": }").getBytes(StandardCharsets.UTF_8),
            "".getBytes(StandardCharsets.UTF_8),
            "null".getBytes(StandardCharsets.UTF_8),
            "[]".getBytes(StandardCharsets.UTF_8),
            ("\"" + op.target.canary() + "\"").getBytes(StandardCharsets.UTF_8),
            "42".getBytes(StandardCharsets.UTF_8),
            ("{\"messages\": [{\"role\": \"user\", \"content\": \"" + op.target.canary() + " \u00c3\u0028\"}]}")
                    .getBytes(StandardCharsets.ISO_8859_1),
            randomBytes(op),
            ("{'messages': [{'role': 'user', 'content': '" + op.target.canary() + "'}]}").getBytes(StandardCharsets.UTF_8),
        };
        int which = op.random.nextInt(bodies.length);
        byte[] body = bodies[which];
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        String path = op.pick(new String[] {"/v1/chat/completions", "/v1/completions", "/api/chat", "/api/generate"});
        try (HttpConnection connection = op.connect()) {
            connection.write(op.head("POST", path, "HTTP/1.1", mark, "content-type: application/json",
                    "content-length: " + body.length), body);
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not("body " + which + ": closed without an answer");
            }
            if (response.status() != 400 || !response.complete()) {
                return Verdict.not("body " + which + ": " + BackendFaults.describe(response));
            }
            if (response.closes()) {
                return Verdict.as("400, closed");
            }
            connection.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
            HttpConnection.Response next = connection.readResponse();
            return Verdict.of(next != null && next.status() == 200, next == null
                    ? "400, then the connection was closed without saying so" : "400, the connection still serves");
        }
    }

    /** JSON nested deeper than any chat: refused, or sized and forwarded; never a failure of Triage's own. */
    static Verdict deeplyNested(Op op) throws IOException {
        int depth = op.pick(new Integer[] {64, 999, 1_001, 5_000, 100_000});
        String open;
        String close;
        switch (op.random.nextInt(3)) {
            case 0 -> {
                open = "[";
                close = "]";
            }
            case 1 -> {
                open = "{\"a\":";
                close = "}";
            }
            default -> {
                open = "[{\"type\":\"text\",\"text\":";
                close = "}]";
            }
        }
        String nested = open.repeat(depth) + "\"" + op.target.canary() + "\"" + close.repeat(depth);
        String json = op.chance(0.5)
                ? "{\"model\":\"replay\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":" + nested + "}]}"
                : nested;
        return servedOrRefused(op, "/v1/chat/completions", json.getBytes(StandardCharsets.UTF_8), "depth " + depth);
    }

    /** Valid JSON of odd types and numbers. */
    static Verdict oddTypes(Op op) throws IOException {
        String user = "{\"role\":\"user\",\"content\":\"" + op.target.canary() + " odd\"}";
        String[] bodies = {
            "{\"messages\": 5}",
            "{\"messages\": [5, null, \"x\", " + user + "]}",
            "{\"messages\": [{\"role\": \"user\", \"content\": {\"a\": 1}}]}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": 5}, {\"type\": \"image_url\"}]}]}",
            "{\"prompt\": [\"" + op.target.canary() + "\", 1, null, {\"a\": []}], \"max_tokens\": 3}",
            "{\"messages\": [" + user + "], \"max_tokens\": -1}",
            "{\"messages\": [" + user + "], \"max_tokens\": 0}",
            "{\"messages\": [" + user + "], \"max_tokens\": \"12\"}",
            "{\"messages\": [" + user + "], \"max_tokens\": 2.5}",
            "{\"messages\": [" + user + "], \"max_tokens\": true}",
            "{\"messages\": [" + user + "], \"max_tokens\": 18446744073709551617}",
            "{\"messages\": [" + user + "], \"max_tokens\": 1e400}",
            "{\"messages\": [" + user + "], \"max_tokens\": " + "9".repeat(1_000) + "}",
            "{\"messages\": [" + user + "], \"max_tokens\": 4, \"stream\": \"yes\"}",
            "{\"messages\": [" + user + "], \"max_tokens\": 4, \"priority\": \"high\"}",
            "{\"messages\": [" + user + "], \"max_tokens\": 4, \"priority\": 1e300}",
            "{\"messages\": [" + user + "], \"max_tokens\": 5, \"max_tokens\": 7}",
            "{\"messages\": [{\"role\": \"user\", \"content\": \"\\ud800 " + op.target.canary() + "\"}], \"max_tokens\": 3}",
            "{\"messages\": [" + (user + ",").repeat(2_000) + user + "], \"max_tokens\": 3}",
            "{\"messages\": [{\"role\": \"user\", \"content\": \"" + op.target.canary() + "x".repeat(150_000) + "\"}], \"max_tokens\": 3}",
            "{\"model\": \"replay\", \"options\": {\"num_predict\": -5}, \"prompt\": \"" + op.target.canary() + "\", \"stream\": false}",
            "{\"messages\": [" + user + "], \"max_tokens\": 3} trailing",
        };
        int which = op.random.nextInt(bodies.length);
        String path = bodies[which].contains("num_predict") ? "/api/generate" : "/v1/chat/completions";
        return servedOrRefused(op, path, bodies[which].getBytes(StandardCharsets.UTF_8), "odd body " + which);
    }

    /** Refused by Triage with a 400, or scheduled and forwarded byte for byte; never a 5xx of Triage's own. */
    private static Verdict servedOrRefused(Op op, String path, byte[] body, String what) throws IOException {
        String mark = op.mark(0);
        op.target.ledger().expect(mark, body);
        try (HttpConnection connection = op.connect()) {
            connection.write(op.head("POST", path, "HTTP/1.1", mark, "content-type: application/json",
                    "content-length: " + body.length), body);
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not(what + ": closed without an answer");
            }
            boolean scheduled = response.has("x-triage-queue-ms");
            if (!response.complete()) {
                return Verdict.not(what + ": " + BackendFaults.describe(response));
            }
            if (!scheduled) {
                boolean refused = response.status() == 400 || response.status() == 413;
                return Verdict.of(refused, refused ? response.status() + " from Triage"
                        : what + ": " + BackendFaults.describe(response) + " from Triage");
            }
            int status = response.status();
            boolean timedOut = status == 504 && response.text().contains("upstream_timeout");
            return Verdict.of(status < 500 || timedOut, timedOut ? "forwarded; the backend took too long (504)"
                    : status < 500 ? "forwarded; the backend answered " + status : what + ": " + BackendFaults.describe(response));
        }
    }

    private static byte[] randomBytes(Op op) {
        byte[] bytes = new byte[op.between(1, 2_000)];
        op.random.nextBytes(bytes);
        return bytes;
    }
}
