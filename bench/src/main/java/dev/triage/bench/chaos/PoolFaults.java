package dev.triage.bench.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Faults of the connections themselves, which need the proxy to themselves while they run: a quiet
 * spell after which the backend has closed Triage's idle pooled connections (as uvicorn does after
 * 5 s), then a burst of requests that find them stale.
 */
final class PoolFaults {

    private PoolFaults() {}

    /**
     * No traffic for longer than the backend keeps idle connections, then a burst: every request
     * must be answered, none refused for the stale connection it was first given.
     */
    static Verdict burstAfterIdle(Op op) throws IOException {
        long closedBefore = op.target.backend().keepAliveClosures();
        ClientFaults.pause(op.target.settings().backendKeepAlive().multipliedBy(3).toMillis());
        long closed = op.target.backend().keepAliveClosures() - closedBefore;
        int burst = op.between(2, 4);
        List<HttpConnection> connections = new ArrayList<>();
        List<ChatRequest> requests = new ArrayList<>();
        try {
            for (int i = 0; i < burst; i++) {
                ChatRequest request = ChatRequest.random(op, op.chance(0.5), op.between(1, 10));
                HttpConnection connection = op.connect();
                connections.add(connection);
                requests.add(request);
                op.target.ledger().expect(op.mark(i), request.body());
                connection.write(request.head(op, op.mark(i)), request.body());
            }
            for (int i = 0; i < burst; i++) {
                Verdict verdict = requests.get(i).checkAnswer(connections.get(i).readResponse());
                if (!verdict.expected()) {
                    return Verdict.not("after the backend closed " + closed + " idle connection(s): " + verdict.seen());
                }
            }
        } finally {
            for (HttpConnection connection : connections) {
                connection.close();
            }
        }
        return Verdict.as("200 complete after an idle spell" + (closed > 0 ? " (stale pooled connections)" : ""));
    }
}
