package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.bench.SharedDataFiles;
import dev.triage.features.Prompt;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.PromptSource;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The proxy's learner replayed on the answers of models the shipped estimators were not trained on
 * (their metadata lists them as excluded): a wordier one and a terser one.
 */
class PrequentialReplayTest {

    /** The replay backend's default speed: 50 ms of prefill, 20 ms a token. */
    private static final ServiceTimeModel REPLAY_BACKEND = new ServiceTimeModel(0.05, 0.02);

    /** How far the prequential ranking accuracy of learned estimates may fall below the frozen ones' without lost order. */
    private static final double MEASURE_SCATTER = 0.02;

    /** The flags' defaults, which the learner starts from. */
    private static final ServiceTimeModel FLAGS = new ServiceTimeModel(0.5, 0.02);

    private static List<PromptAnswer> alpacaEval;

    @BeforeAll
    static void load() throws IOException {
        alpacaEval = PromptResponseLoader.load(SharedDataFiles.require("prompt_response"), PromptSource.ALPACA_EVAL);
    }

    /**
     * The classifier's frozen estimates already fit the wordier model (its class means are long
     * answers' lengths): there the shadow evaluation keeps them serving, and learning must do no harm.
     */
    @ParameterizedTest
    @CsvSource({"lexical, gpt4_1106_preview_verbose, 0.6", "classifier, gpt4_1106_preview_verbose, 1.0",
            "lexical, alpaca-7b, 0.6", "classifier, alpaca-7b, 0.6"})
    void learningCutsTheLogErrorOnAHeldOutModelKeepsTheRankingAndFindsTheBackendsSpeed(String estimatorName, String model,
            double maxErrorRatio) {
        Supplier<JobEstimator<Prompt>> loader = estimatorName.equals("lexical") ? LexicalEstimator::loadDefault
                : ClassifierEstimator::loadDefault;
        List<PrequentialReplay.Answered> stream;
        try (JobEstimator<Prompt> estimator = loader.get()) {
            stream = PrequentialReplay.stream(alpacaEval, model, estimator, 42);
        }
        PrequentialReplay.Figures figures = PrequentialReplay.run(stream, REPLAY_BACKEND, FLAGS, 1);
        String described = estimatorName + " on " + model + ": " + figures.describe();
        assertTrue(figures.logErrorRatio() <= maxErrorRatio, described);
        // A terse model writes no long answer, so its stream has no (short, long) pair to rank. Each estimate of a pair
        // was made under the calibration of its own moment, and the map moves as answers come in: the measure scatters by
        // a few points either way where the scheduler, which costs waiting requests again under one map, sees no change
        // (docs/online-learning.md). A fall of more than MEASURE_SCATTER is taken for lost order.
        assertTrue(Double.isNaN(figures.frozenRankingAccuracy())
                || figures.learnedRankingAccuracy() >= figures.frozenRankingAccuracy() - MEASURE_SCATTER, described);
        assertEquals(REPLAY_BACKEND.baseSeconds(), figures.serviceTime().baseSeconds(), 0.1 * REPLAY_BACKEND.baseSeconds(), described);
        assertEquals(REPLAY_BACKEND.secondsPerToken(), figures.serviceTime().secondsPerToken(),
                0.1 * REPLAY_BACKEND.secondsPerToken(), described);
    }
}
