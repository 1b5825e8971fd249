package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.config.EstimatorConfig;
import java.nio.file.Path;
import java.util.function.Supplier;

/** Builds the configured chat estimator, its fallback, and the loader a reload calls again. */
public final class ChatEstimators {

    private ChatEstimators() {}

    /**
     * Loads the configured estimator.
     *
     * @throws dev.triage.model.classifier.ModelLoadException when its model cannot be loaded
     */
    public static JobEstimator<Prompt> load(EstimatorConfig config) {
        return config.hasModel() ? modelLoader(config).get() : new BaselineEstimator();
    }

    /** The configured fallback, with the model shipped with Triage. */
    public static JobEstimator<Prompt> fallback(EstimatorConfig config) {
        return switch (config.fallback()) {
            case ClassifierEstimator.NAME -> ClassifierEstimator.loadDefault();
            case LexicalEstimator.NAME -> LexicalEstimator.loadDefault();
            default -> new BaselineEstimator();
        };
    }

    /**
     * Checks, before Triage serves, that the configured model's files are there, so that a wrong
     * path stops start-up even when the model itself loads in the background.
     *
     * @throws dev.triage.model.classifier.ModelLoadException naming the file that is missing or unreadable
     */
    public static void requireModelFiles(EstimatorConfig config) {
        config.model().ifPresent(model -> {
            for (Path file : new Path[] {model, ModelFiles.metadataPath(model)}) {
                ModelFiles.readFile(config.name(), model.toString(), file);
            }
        });
    }

    /** What loads the configured model again, for a reload. */
    public static Supplier<JobEstimator<Prompt>> reloader(EstimatorConfig config) {
        return modelLoader(config);
    }

    /** Where the configured model is read from, as errors and the reload answer name it. */
    public static String modelLocation(EstimatorConfig config) {
        String shipped = switch (config.name()) {
            case RankerEstimator.NAME -> RankerEstimator.DEFAULT_MODEL_RESOURCE;
            case LexicalEstimator.NAME -> LexicalEstimator.DEFAULT_MODEL_RESOURCE;
            default -> ClassifierEstimator.DEFAULT_MODEL_RESOURCE;
        };
        return config.model().map(Object::toString).orElse("classpath:" + shipped);
    }

    private static Supplier<JobEstimator<Prompt>> modelLoader(EstimatorConfig config) {
        return switch (config.name()) {
            case ClassifierEstimator.NAME -> () -> config.model().map(ClassifierEstimator::load)
                    .orElseGet(ClassifierEstimator::loadDefault);
            case RankerEstimator.NAME -> () -> config.model().map(RankerEstimator::load).orElseGet(RankerEstimator::loadDefault);
            case LexicalEstimator.NAME -> () -> config.model().map(LexicalEstimator::load).orElseGet(LexicalEstimator::loadDefault);
            default -> throw new IllegalArgumentException("estimator " + config.name() + " has no model to load");
        };
    }
}
