package dev.triage.bench.chaos;

import dev.triage.proxy.config.ConfigLoader;
import dev.triage.proxy.preemption.PreemptionDialect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a fault-injection run does: how many operations, drawn from which kinds, by how many clients at
 * once, against a Triage with how many backend slots.
 *
 * @param ops operations to run
 * @param maxConcurrency Triage's {@code --max-concurrency}, and the replay backend's slots
 * @param clients operations in flight at once
 * @param seed the run's random source: the same seed draws the same operations
 * @param kinds the kinds drawn from, each by its weight
 * @param upstreamTimeout Triage's {@code --upstream-timeout}: how long a silent backend is waited for
 * @param backendKeepAlive how long the replay backend keeps an idle connection before it closes it, as uvicorn
 *     (under vLLM) closes one after 5 s; zero to keep it open
 * @param readTimeout how long a client waits for Triage to say anything before it calls the operation hung
 * @param audio a folder of recordings to upload (and to damage); null for tones made by the run
 * @param workDir where Triage's log goes
 * @param triageOptions further flags given to Triage as they are
 */
record ChaosSettings(int ops, int maxConcurrency, int clients, long seed, Set<FaultKind> kinds, Duration upstreamTimeout,
        Duration backendKeepAlive, Duration readTimeout, Path audio, Path workDir, List<String> triageOptions) {

    /** How much later than its bound an event may come on a loaded machine before it counts as late. */
    static final Duration SLACK = Duration.ofSeconds(10);
    /** How long Triage may wait on a client that does not read its answer before it gives up on it. */
    static final Duration CLIENT_WRITE_TIMEOUT = Duration.ofSeconds(2);
    /** How long Triage may wait for a client's request head or body before it gives up on it. */
    static final Duration CLIENT_READ_TIMEOUT = Duration.ofSeconds(2);
    /** Triage's {@code --max-body} in a run. */
    static final int MAX_BODY_BYTES = 1 << 20;
    /** Triage's {@code --max-audio-body} in a run. */
    static final int MAX_AUDIO_BODY_BYTES = 4 << 20;

    ChaosSettings {
        Objects.requireNonNull(upstreamTimeout, "upstreamTimeout");
        Objects.requireNonNull(backendKeepAlive, "backendKeepAlive");
        Objects.requireNonNull(readTimeout, "readTimeout");
        Objects.requireNonNull(workDir, "workDir");
        kinds = kinds.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
        triageOptions = List.copyOf(triageOptions);
        check(ops >= 1, "ops", ops, ">= 1");
        check(maxConcurrency >= 1, "max-concurrency", maxConcurrency, ">= 1");
        check(clients >= 1, "clients", clients, ">= 1");
        check(!kinds.isEmpty(), "kinds", kinds, "at least one kind");
        check(upstreamTimeout.toMillis() >= 1, "upstream-timeout", upstreamTimeout, ">= 1 ms");
        check(!backendKeepAlive.isNegative(), "backend-keep-alive", backendKeepAlive, ">= 0");
        check(readTimeout.compareTo(upstreamTimeout.plus(SLACK)) >= 0, "read-timeout", readTimeout,
                ">= the upstream timeout + " + SLACK.toSeconds() + " s");
    }

    /**
     * Whether the Triage options, read as Triage reads them, name a preemption dialect: paused streams
     * then come back to the backend as continuations.
     */
    boolean pausesStreams() {
        return ConfigLoader.load(triageOptions.toArray(String[]::new), Map.of()).preemption() != PreemptionDialect.OFF;
    }

    private static void check(boolean ok, String name, Object value, String expected) {
        if (!ok) {
            throw new IllegalArgumentException("--" + name + ": " + value + " (expected: " + expected + ")");
        }
    }
}
