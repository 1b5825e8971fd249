package dev.triage.bench.chaos;

import java.io.IOException;
import java.time.Duration;

/**
 * Scheduled requests whose backend answers well, or fails as real servers fail: an error status,
 * bytes that are not HTTP, a reset, silence, or a stream that dies, resets or falls silent midway.
 * Every one reaches the backend with its body intact; how the client is answered depends on how far
 * the backend got.
 */
final class BackendFaults {

    private BackendFaults() {}

    /** Well-behaved traffic: now and then several requests on one keep-alive connection. */
    static Verdict answered(Op op) throws IOException {
        int requests = op.chance(0.3) ? op.between(2, 3) : 1;
        try (HttpConnection connection = op.connect()) {
            for (int i = 0; i < requests; i++) {
                ChatRequest request = ChatRequest.random(op, op.chance(0.5), op.between(1, 40));
                Verdict verdict = request.send(op, connection, op.mark(i));
                if (!verdict.expected()) {
                    return verdict;
                }
            }
        }
        return Verdict.as(requests == 1 ? "200 complete" : "200 complete, " + requests + " on one connection");
    }

    /** The backend's own error status reaches the client unchanged, with Triage's headers. */
    static Verdict errorStatus(Op op) throws IOException {
        int status = op.pick(new Integer[] {500, 503, 429, 400});
        HttpConnection.Response response = faulty(op, op.chance(0.5), "status=" + status);
        if (response == null) {
            return Verdict.not("no answer");
        }
        boolean relayed = response.status() == status && response.complete() && response.text().contains("injected fault")
                && response.has("x-triage-queue-ms");
        return Verdict.of(relayed, relayed ? "the backend's " + status + " relayed" : describe(response));
    }

    /** A backend that answers with bytes that are not HTTP: a 502. */
    static Verdict garbage(Op op) throws IOException {
        return gatewayError(op, "garbage", 502);
    }

    /** A backend that resets the connection without answering: a 502. */
    static Verdict reset(Op op) throws IOException {
        return gatewayError(op, "reset", 502);
    }

    /** A backend that dies before the answer in one body is written: a 502. */
    static Verdict diesBeforeTheAnswer(Op op) throws IOException {
        return gatewayError(op, "die-after=" + op.between(0, 3), 502);
    }

    /** A backend that never answers: a 504 once the upstream timeout has passed, not much later. */
    static Verdict stall(Op op) throws IOException {
        long start = System.nanoTime();
        Verdict verdict = gatewayError(op, "stall", 504);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        Duration bound = op.target.settings().upstreamTimeout().plus(ChaosSettings.SLACK);
        if (verdict.expected() && took.compareTo(bound) > 0) {
            return Verdict.not("504 only after " + took.toMillis() + " ms");
        }
        return verdict;
    }

    /** A stream whose backend closes the connection midway: the client's stream ends early, and promptly. */
    static Verdict diesMidStream(Op op) throws IOException {
        return cutShort(op, "die-after=" + op.between(0, 5));
    }

    /** A stream whose backend resets the connection midway. */
    static Verdict resetsMidStream(Op op) throws IOException {
        return cutShort(op, "reset-after=" + op.between(0, 5));
    }

    /** A stream whose backend falls silent midway: the client's stream ends once the upstream timeout passed. */
    static Verdict stallsMidStream(Op op) throws IOException {
        return cutShort(op, "stall-after=" + op.between(0, 3));
    }

    private static Verdict gatewayError(Op op, String fault, int status) throws IOException {
        HttpConnection.Response response = faulty(op, false, fault);
        if (response == null) {
            return Verdict.not("connection closed without an answer");
        }
        return Verdict.of(response.status() == status && response.complete(), describe(response));
    }

    /** A streamed answer that begins, then must end without its last chunk. */
    private static Verdict cutShort(Op op, String fault) throws IOException {
        HttpConnection.Response response = faulty(op, true, fault);
        if (response == null) {
            return Verdict.not("connection closed without an answer");
        }
        if (response.status() != 200) {
            return Verdict.not(describe(response));
        }
        return Verdict.of(!response.complete(), response.complete() ? "200 complete: the failure was hidden" : "200, then cut short");
    }

    /** Sends a request that asks the backend for {@code fault}, and reads what comes back, however it ends. */
    private static HttpConnection.Response faulty(Op op, boolean stream, String fault) throws IOException {
        ChatRequest request = ChatRequest.random(op, stream, op.between(10, 40));
        String mark = op.mark(0);
        op.target.ledger().expect(mark, request.body());
        try (HttpConnection connection = op.connect()) {
            connection.write(request.head(op, mark, "x-replay-fault: " + fault), request.body());
            return connection.readResponse();
        }
    }

    static String describe(HttpConnection.Response response) {
        String code = response.header("content-type") != null && response.header("content-type").contains("json")
                ? " " + errorCode(response.text()) : "";
        return response.status() + code + (response.complete() ? "" : ", cut short");
    }

    private static String errorCode(String json) {
        int at = json.indexOf("\"code\":\"");
        return at < 0 ? "" : json.substring(at + 8, json.indexOf('"', at + 8));
    }
}
