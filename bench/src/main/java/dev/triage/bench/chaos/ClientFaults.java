package dev.triage.bench.chaos;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Clients that do not wait for their answer as they should: they leave while queued or mid-stream
 * (closing, or resetting the connection), stop reading a stream, or read it slowly. What Triage owes
 * them is little; what it owes everyone else is its slots back, which the run's end checks.
 */
final class ClientFaults {

    /** A receive buffer small enough that a client that stops reading stops the sender soon. */
    private static final int SMALL_RECEIVE_BUFFER = 4 * 1024;

    private ClientFaults() {}

    /** Sends a request and leaves before any answer: often while it waits in the queue. */
    static Verdict leavesEarly(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, op.chance(0.5), op.between(20, 60));
        String mark = op.mark(0);
        op.target.ledger().expect(mark, request.body());
        HttpConnection connection = op.connect();
        connection.write(request.head(op, mark), request.body());
        pause(op.between(0, 20));
        boolean reset = op.chance(0.3);
        if (reset) {
            connection.reset();
        } else {
            connection.close();
        }
        return Verdict.as(reset ? "left (reset) before the answer" : "left before the answer");
    }

    /** Reads the head and a few events of a long stream, then leaves. */
    static Verdict leavesMidStream(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, true, op.between(200, 800));
        String mark = op.mark(0);
        op.target.ledger().expect(mark, request.body());
        HttpConnection connection = op.connect();
        try {
            connection.write(request.head(op, mark), request.body());
            HttpConnection.Response head = connection.readHead();
            if (head == null || head.status() != 200) {
                return notStarted(head);
            }
            connection.readSome(op.between(1, 4_000));
        } finally {
            if (op.chance(0.3)) {
                connection.reset();
            } else {
                connection.close();
            }
        }
        return Verdict.as("200, left mid-stream");
    }

    /**
     * Reads the status line of a long stream and stops reading. Triage must give up on it (its write
     * timeout), free the slot and close the connection; read later, the stream must then end early.
     * A stream read to its end means Triage held the slot for a client that was not reading.
     */
    static Verdict stopsReading(Op op) throws IOException {
        ChatRequest request = ChatRequest.of(op, ChatRequest.Route.CHAT, true, 20_000);
        try (HttpConnection connection = sendWithSmallBuffer(op, request)) {
            HttpConnection.Response head = connection.readHead();
            if (head == null || head.status() != 200) {
                return notStarted(head);
            }
            pause(ChaosSettings.CLIENT_WRITE_TIMEOUT.multipliedBy(3).toMillis());
            // A stream the socket buffers hold whole never blocks Triage: the backend's slot is free once it has
            // answered, and the run's end checks that every slot is. One that does not fit must be cut off.
            HttpConnection.Response rest = connection.readBody(head);
            return Verdict.as(rest.complete() ? "200, the whole stream held by the socket buffers" : "200, then closed by Triage");
        }
    }

    /** Reads a stream in small pieces with pauses: slow, but steady, so it must get all of it. */
    static Verdict readsSlowly(Op op) throws IOException {
        ChatRequest request = ChatRequest.random(op, true, op.between(100, 300));
        try (HttpConnection connection = sendWithSmallBuffer(op, request)) {
            HttpConnection.Response head = connection.readHead();
            if (head == null || head.status() != 200) {
                return notStarted(head);
            }
            HttpConnection.Response whole = connection.readBodySlowly(head, 1024, () -> pause(5));
            if (!whole.complete() || !request.wellEnded(whole.text())) {
                return Verdict.not("200, cut short while reading slowly");
            }
            return Verdict.as("200 complete, read slowly");
        }
    }

    /** Sends a request on a connection whose receive buffer is small, expecting its body at the backend. */
    private static HttpConnection sendWithSmallBuffer(Op op, ChatRequest request) throws IOException {
        op.target.ledger().expect(op.mark(0), request.body());
        HttpConnection connection = HttpConnection.openWithSmallBuffer(op.target.port(), op.target.settings().readTimeout(),
                SMALL_RECEIVE_BUFFER);
        try {
            connection.write(request.head(op, op.mark(0)), request.body());
        } catch (IOException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    /** A stream that did not start: Triage closed, or answered something else than 200. */
    private static Verdict notStarted(HttpConnection.Response head) {
        return Verdict.not(head == null ? "closed before the answer" : BackendFaults.describe(head));
    }

    /** A client's own dawdling: the fault it injects, not a wait for something to happen. */
    static void pause(long millis) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}
