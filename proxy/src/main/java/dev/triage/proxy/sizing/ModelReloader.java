package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the configured model off the network threads, checks that it estimates, and only then
 * installs it: the first time for an estimator that loads in the background, and again on every
 * reload. A model that fails either step is closed and whatever serves stays; the result says why.
 * Loads run one at a time.
 */
public final class ModelReloader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ModelReloader.class);

    /** Prompts every new model must estimate, finitely, before it serves; an expensive one's batcher is timed on them too. */
    static final List<Prompt> CANARIES = List.of(new Prompt(""), new Prompt("What is 2 + 2?"),
            new Prompt("Write a detailed, multi-part essay on the history of queueing theory, with examples and code."));

    /** What a reload did. */
    public record Result(boolean reloaded, String model, String message) {}

    private final Consumer<JobEstimator<Prompt>> install;
    private final Supplier<JobEstimator<Prompt>> loader;
    private final String location;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(new DaemonThreadFactory("triage-model-reload"));

    /**
     * @param install makes a checked model the serving one
     * @param location where the loader reads the model, for messages
     */
    public ModelReloader(Consumer<JobEstimator<Prompt>> install, Supplier<JobEstimator<Prompt>> loader, String location) {
        this.install = install;
        this.loader = loader;
        this.location = location;
    }

    public CompletableFuture<Result> reload() {
        return CompletableFuture.supplyAsync(this::reloadNow, worker);
    }

    private Result reloadNow() {
        JobEstimator<Prompt> fresh;
        try {
            fresh = loader.get();
        } catch (RuntimeException e) {
            log.warn("model not loaded: {}", e.getMessage());
            return new Result(false, location, e.getMessage());
        } catch (LinkageError | OutOfMemoryError e) {
            // A native library that does not load, a model too large to read: the serving model stays,
            // and the failure is told as any other, rather than lost with the worker's task.
            log.warn("model not loaded: {}: {}", location, e.toString());
            return new Result(false, location, location + ": " + e);
        }
        String problem = check(fresh);
        if (problem != null) {
            fresh.close();
            log.warn("model not loaded: {}: {}", location, problem);
            return new Result(false, location, location + ": " + problem);
        }
        install.accept(fresh);
        log.info("model loaded from {}", location);
        return new Result(true, location, "reloaded");
    }

    private static String check(JobEstimator<Prompt> fresh) {
        try {
            for (Estimate estimate : fresh.estimateAll(CANARIES)) {
                if (!Double.isFinite(estimate.expectedTokens())) {
                    return "it estimates " + estimate.expectedTokens() + " tokens";
                }
            }
            return null;
        } catch (RuntimeException | LinkageError | OutOfMemoryError e) {
            return "estimating failed: " + e;
        }
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
