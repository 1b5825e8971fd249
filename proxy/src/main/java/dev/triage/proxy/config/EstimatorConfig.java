package dev.triage.proxy.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Which estimator sizes chat requests, where its model comes from, and which fast estimator sizes
 * a request when it cannot in time.
 *
 * @param name one of {@link #NAMES}
 * @param model the model file; empty for the model shipped with Triage
 * @param fallback one of {@link #FALLBACKS}: sizes a request while the configured estimator's model
 *     loads, when its executor is saturated, when it fails, or when its model could not be loaded
 * @param watch reload the model when its file changes
 */
public record EstimatorConfig(String name, Optional<Path> model, String fallback, boolean watch) {

    /** The chat estimators Triage has. */
    public static final List<String> NAMES = List.of("classifier", "ranker", "lexical", "baseline");

    /** The estimators fast enough to stand in for another: they size a prompt in microseconds, on the event loop. */
    public static final List<String> FALLBACKS = List.of("classifier", "lexical", "baseline");

    /** True for the estimators that load a model (and can reload it). */
    public boolean hasModel() {
        return !name.equals("baseline");
    }

    /**
     * True when the model loads after Triage starts serving, the fallback sizing requests until it
     * is ready: the expensive models; the fast ones load in milliseconds, before Triage serves.
     */
    public boolean loadsInBackground() {
        return !FALLBACKS.contains(name);
    }
}
