package dev.triage.proxy.sizing;

import dev.triage.features.Prompt;
import dev.triage.model.BaselineEstimator;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.proxy.config.EstimatorConfig;
import java.util.function.Supplier;

/** Builds the configured chat estimator, and the loader a reload calls again. */
public final class ChatEstimators {

    private ChatEstimators() {}

    /**
     * Loads the configured estimator. A model that cannot be loaded stops start-up with its reason
     * ({@link dev.triage.model.classifier.ModelLoadException}), unless the configuration asks for the
     * baseline instead, which is then used with a warning.
     */
    public static JobEstimator<Prompt> load(EstimatorConfig config) {
        if (!config.hasModel()) {
            return new BaselineEstimator();
        }
        Supplier<JobEstimator<Prompt>> loader = modelLoader(config);
        return config.fallBackToBaseline() ? ClassifierEstimator.loadOrFallBackToBaseline(loader) : loader.get();
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
