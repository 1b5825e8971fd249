package dev.triage.bench.relay;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The answer tokens delivered per request id, for the ids seen most recently. Owned by the relay's
 * one event loop thread.
 */
final class StreamedTokens {

    /** Ids remembered; the least recently used is forgotten beyond this. */
    static final int MAX_IDS = 100_000;

    private final Map<String, Integer> counts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > MAX_IDS;
        }
    };

    /** The tokens delivered to {@code requestId}; 0 for an unknown id or none. */
    int get(String requestId) {
        return requestId == null ? 0 : counts.getOrDefault(requestId, 0);
    }

    void add(String requestId, int tokens) {
        if (requestId != null && tokens > 0) {
            counts.merge(requestId, tokens, Integer::sum);
        }
    }
}
