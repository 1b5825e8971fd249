package dev.triage.proxy.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Which estimator sizes chat requests, and where its model comes from.
 *
 * @param name one of {@link #NAMES}
 * @param model the model file; empty for the model shipped with Triage
 * @param fallBackToBaseline when the model cannot be loaded at start-up, warn and use {@code baseline}
 *     instead of refusing to start
 * @param watch reload the model when its file changes
 */
public record EstimatorConfig(String name, Optional<Path> model, boolean fallBackToBaseline, boolean watch) {

    /** The chat estimators Triage has. */
    public static final List<String> NAMES = List.of("classifier", "ranker", "lexical", "baseline");

    /** True for the estimators that load a model (and can reload it). */
    public boolean hasModel() {
        return !name.equals("baseline");
    }
}
