package dev.triage.bench.sim;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The KV caches a backend's spare slots keep for paused jobs: those of the {@code spare} most recently
 * paused ones. A job whose cache was kept resumes with no prefill.
 *
 * @param <K> what identifies a job
 */
final class KeptCaches<K> {

    private final Map<K, Boolean> kept;

    KeptCaches(int spare) {
        this.kept = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, Boolean> eldest) {
                return size() > spare;
            }
        };
    }

    /** A job was paused: its cache is kept, and the oldest kept one is dropped beyond the spare slots. */
    void paused(K job) {
        kept.put(job, Boolean.TRUE);
    }

    /** A job resumes: true when its cache was still kept (and it no longer is). */
    boolean resumes(K job) {
        return kept.remove(job) != null;
    }
}
