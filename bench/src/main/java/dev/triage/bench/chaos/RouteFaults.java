package dev.triage.bench.chaos;

import java.io.IOException;

/**
 * Requests by route: the routes Triage answers itself and those it passes through, and other
 * spellings of the scheduled routes and of the admin API's paths. A spelling the backend would serve
 * as a scheduled route must be scheduled (or refused with a 400), never passed through to take no
 * slot; an admin path, however spelled, must never reach the backend.
 */
final class RouteFaults {

    private static final String[] ADMIN_SPELLINGS = {"//triage/queue", "/triage//queue", "/triage/queue/", "/%74riage/queue",
        "/triage/%71ueue", "/triage/queue;x", "/triage/./queue", "/v1/../triage/queue", "/triage/queue/..;/queue",
        "http://127.0.0.1:PORT/triage/queue", "/triage%2Fqueue"};

    private RouteFaults() {}

    /** {@code /healthz}, {@code /readyz}, {@code /metrics} and the admin API's views: answered by Triage, 200. */
    static Verdict local(Op op) throws IOException {
        String path = op.pick(new String[] {"/healthz", "/readyz", "/metrics", "/triage/queue", "/triage/config"});
        try (HttpConnection connection = op.connect()) {
            connection.write(op.head("GET", path, "HTTP/1.1", op.mark(0)));
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not(path + ": closed without an answer");
            }
            return Verdict.of(response.status() == 200 && response.complete(),
                    response.status() == 200 ? "200 from Triage" : path + ": " + BackendFaults.describe(response));
        }
    }

    /** Routes Triage does not schedule: relayed at once, the backend's answer unchanged, a body byte for byte. */
    static Verdict passedThrough(Op op) throws IOException {
        String mark = op.mark(0);
        try (HttpConnection connection = op.connect()) {
            int expected;
            switch (op.random.nextInt(3)) {
                case 0 -> {
                    op.target.ledger().expect(mark, new byte[0]);
                    connection.write(op.head("GET", "/v1/models", "HTTP/1.1", mark));
                    expected = 200;
                }
                case 1 -> {
                    op.target.ledger().expect(mark, new byte[0]);
                    connection.write(op.head("GET", "/v1/files/" + op.id, "HTTP/1.1", mark));
                    expected = 404;
                }
                default -> {
                    byte[] body = ChatRequest.random(op, false, 1).body();
                    op.target.ledger().expect(mark, body);
                    connection.write(op.head("POST", "/v1/embeddings", "HTTP/1.1", mark, "content-type: application/json",
                            "content-length: " + body.length), body);
                    expected = 404;
                }
            }
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not("closed without an answer");
            }
            boolean relayed = response.status() == expected && response.complete() && !response.has("x-triage-queue-ms");
            return Verdict.of(relayed, relayed ? "the backend's " + expected + " relayed" : BackendFaults.describe(response));
        }
    }

    /** Another spelling of a scheduled route: scheduled, or refused with a 400. */
    static Verdict scheduledSpelling(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, false, op.between(1, 10));
        String spelling = spelling(op, request.route().path);
        String mark = op.mark(0);
        op.target.ledger().expect(mark, request.body());
        try (HttpConnection connection = op.connect()) {
            connection.write(op.head("POST", spelling, "HTTP/1.1", mark, "content-type: application/json",
                    "content-length: " + request.body().length), request.body());
            HttpConnection.Response response = connection.readResponse();
            if (response == null) {
                return Verdict.not(spelling + ": closed without an answer");
            }
            if (response.has("x-triage-queue-ms")) {
                return Verdict.as("scheduled (" + response.status() + ")");
            }
            // 413: Triage's own limit on a scheduled route's body; the replay backend has none.
            boolean refused = response.status() == 400 || response.status() == 413;
            return Verdict.of(refused, refused ? "refused (" + response.status() + ")"
                    : spelling + ": passed through unscheduled (" + response.status() + ")");
        }
    }

    /** Another spelling of an admin path: answered by Triage however it likes, but never forwarded. */
    static Verdict adminSpelling(Op op) throws IOException {
        String spelling = op.pick(ADMIN_SPELLINGS).replace("PORT", Integer.toString(op.target.port()));
        String mark = op.mark(0);
        op.target.ledger().forbid(mark);
        try (HttpConnection connection = op.connect()) {
            connection.write(op.head("GET", spelling, "HTTP/1.1", mark));
            HttpConnection.Response response = connection.readResponse();
            if (op.target.ledger().arrived(mark)) {
                return Verdict.not(spelling + ": forwarded to the backend");
            }
            return Verdict.as(response == null ? "closed" : response.status() + " from Triage");
        }
    }

    /** Another way to write {@code path} that some backend would still serve as it. */
    private static String spelling(Op op, String path) {
        int first = path.indexOf('/', 1);
        int last = path.lastIndexOf('/');
        return switch (op.random.nextInt(12)) {
            case 0 -> path + "/";
            case 1 -> "/" + path;
            case 2 -> path.substring(0, first) + "/" + path.substring(first);
            case 3 -> path + ";x";
            case 4 -> path + "/.";
            case 5 -> path.substring(0, first) + "/." + path.substring(first);
            case 6 -> path.substring(0, first) + "/x/.." + path.substring(first);
            case 7 -> percentEncodeOneLetter(op, path);
            case 8 -> path.substring(0, last) + "%2F" + path.substring(last + 1);
            case 9 -> "http://127.0.0.1:" + op.target.port() + path;
            case 10 -> "http://backend.invalid" + path;
            default -> path + "?x=1";
        };
    }

    /** The route with one letter of its last segment percent-encoded: {@code /v1/chat/%63ompletions}. */
    private static String percentEncodeOneLetter(Op op, String path) {
        int segment = path.lastIndexOf('/') + 1;
        int at = segment + op.random.nextInt(path.length() - segment);
        return path.substring(0, at) + String.format("%%%02X", (int) path.charAt(at)) + path.substring(at + 1);
    }
}
