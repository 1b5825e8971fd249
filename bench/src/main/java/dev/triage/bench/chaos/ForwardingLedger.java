package dev.triage.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.triage.bench.replay.RequestListener;
import dev.triage.proxy.api.Json;
import io.netty.handler.codec.http.FullHttpRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the backend received, held against what the clients sent. A client marks each request with
 * {@value #MARK_HEADER}, and either expects it, with its body, which must then arrive byte for byte
 * and at most once, or forbids it (a request Triage must refuse), which must never arrive. The
 * backend tells the ledger of every request as it arrives. Where Triage pauses streams, a request may
 * arrive again as the continuation of its answer ({@link ResumeShape}); that is a resume, not a
 * request forwarded twice.
 */
final class ForwardingLedger implements RequestListener {

    static final String MARK_HEADER = "x-chaos-op";
    /**
     * The latest first bodies kept for comparing with a resume: a resume follows its first run while
     * the client is still reading, and a run has at most a few dozen requests in flight.
     */
    private static final int KEPT_BODIES = 256;

    private final Map<String, byte[]> expected = new ConcurrentHashMap<>();
    private final Set<String> forbidden = ConcurrentHashMap.newKeySet();
    private final Set<String> arrived = ConcurrentHashMap.newKeySet();
    private final LongAdder checked = new LongAdder();
    private final LongAdder altered = new LongAdder();
    private final LongAdder duplicated = new LongAdder();
    private final LongAdder leaked = new LongAdder();
    private final LongAdder resumed = new LongAdder();
    /** The latest requests' first bodies as they reached the backend, where Triage may resume them; null where it never does. */
    private final Map<String, JsonNode> firstBodies;
    private final Examples examples;

    /** @param pausesStreams whether Triage runs with a preemption dialect, so that a request may come back as its continuation */
    ForwardingLedger(Examples examples, boolean pausesStreams) {
        this.examples = examples;
        this.firstBodies = pausesStreams ? Collections.synchronizedMap(new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, JsonNode> eldest) {
                return size() > KEPT_BODIES;
            }
        }) : null;
    }

    /** The request marked {@code mark} may reach the backend, once, with exactly this body. */
    void expect(String mark, byte[] body) {
        expected.put(mark, sha256(ByteBuffer.wrap(body)));
    }

    /** The request marked {@code mark} must never reach the backend. */
    void forbid(String mark) {
        forbidden.add(mark);
    }

    @Override
    public void received(FullHttpRequest request) {
        String mark = request.headers().get(MARK_HEADER);
        if (mark == null) {
            return; // Triage's own readiness probes
        }
        if (!arrived.add(mark)) {
            JsonNode first = firstBodies == null ? null : firstBodies.get(mark);
            if (first != null && ResumeShape.continues(first, json(request))) {
                resumed.increment();
            } else {
                duplicated.increment();
                examples.add("forwarded twice", mark + " " + request.method() + " " + request.uri());
            }
        } else if (firstBodies != null) {
            JsonNode body = json(request);
            if (body != null) {
                firstBodies.put(mark, body);
            }
        }
        if (forbidden.contains(mark)) {
            leaked.increment();
            examples.add("forwarded though it must be refused", mark + " " + request.method() + " " + request.uri());
        }
        byte[] want = expected.remove(mark);
        if (want != null) {
            checked.increment();
            if (!Arrays.equals(want, sha256(request.content().nioBuffer()))) {
                altered.increment();
                examples.add("body altered", mark + " " + request.uri() + ": " + request.content().readableBytes() + " bytes arrived");
            }
        }
    }

    /** Whether the request marked {@code mark} has reached the backend. */
    boolean arrived(String mark) {
        return arrived.contains(mark);
    }

    /** The counts so far. */
    Tally tally() {
        return new Tally(checked.sum(), altered.sum(), duplicated.sum(), leaked.sum(), resumed.sum());
    }

    /**
     * @param checked bodies compared with what their client sent
     * @param altered of those, bodies that differed
     * @param duplicated requests that reached the backend more than once
     * @param leaked requests that reached the backend though Triage had to refuse them
     * @param resumed continuations of paused streams that reached the backend
     */
    record Tally(long checked, long altered, long duplicated, long leaked, long resumed) {}

    private static JsonNode json(FullHttpRequest request) {
        try {
            return Json.readTree(request.content());
        } catch (IOException e) {
            return null; // not JSON: never a continuation
        }
    }

    private static byte[] sha256(ByteBuffer bytes) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(bytes);
            return digest.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
