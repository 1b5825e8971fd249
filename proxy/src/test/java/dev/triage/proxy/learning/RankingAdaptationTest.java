package dev.triage.proxy.learning;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.Prompt;
import dev.triage.features.PromptFeatures;
import dev.triage.features.RequestFeatures;
import dev.triage.proxy.scheduler.ServiceTimeModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ranking adaptation and its guard, on streams of two kinds of prompt that the frozen estimator
 * orders one way and this backend's answers the other.
 */
class RankingAdaptationTest {

    private static final LearnedServiceTime FLAGS = LearnedServiceTime.of(new ServiceTimeModel(0.5, 0.02));
    private static final String[] TOPICS = {"tides", "volcanoes", "the printing press", "glaciers", "bridges", "coral reefs",
        "the silk road", "jazz", "bees", "lighthouses"};

    @Test
    void itLearnsAnOrderThatTheFrozenEstimatesHaveBackwardsAndServesIt() {
        BackendLearner learner = learner(true);
        Random random = new Random(3);
        feedBackwards(learner, random);

        assertTrue(learner.adaptationServes(), learner.adaptedRankingAccuracy() + " vs " + learner.frozenRankingAccuracy());
        assertTrue(learner.adaptedRankingAccuracy() > 0.9 && learner.frozenRankingAccuracy() < 0.1,
                learner.adaptedRankingAccuracy() + " vs " + learner.frozenRankingAccuracy());
        double essay = served(learner, 100, essay(random));
        double question = served(learner, 300, question(random));
        assertTrue(essay > question, "the essay is served as the longer one: " + essay + " vs " + question);
    }

    @Test
    void theGuardSwitchesBackWhenTheAdaptedOrderStopsHelping() {
        BackendLearner learner = learner(true);
        Random random = new Random(4);
        feedBackwards(learner, random);
        assertTrue(learner.adaptationServes());

        // Now the frozen order is right: essays are answered briefly, questions at length.
        feed(learner, 600, random, 100, 60, 300, 1_200);

        assertFalse(learner.adaptationServes(), learner.adaptedRankingAccuracy() + " vs " + learner.frozenRankingAccuracy());
        assertTrue(served(learner, 300, question(random)) > served(learner, 100, essay(random)));
    }

    @Test
    void noOrderIsLearnedWhenOnlineLearningIsOff() {
        BackendLearner learner = learner(false);
        Random random = new Random(5);
        feedBackwards(learner, random);

        assertFalse(learner.adaptationServes());
        assertEquals(100, served(learner, 100, essay(random)), 1e-9);
        assertEquals(300, served(learner, 300, question(random)), 1e-9);
    }

    @Test
    void aRestoredLearnerServesTheSameOrder() {
        BackendLearner before = learner(true);
        Random random = new Random(6);
        feedBackwards(before, random);
        assertTrue(before.adaptationServes());

        BackendLearner after = learner(true);
        assertTrue(after.restore(before.state()));
        assertTrue(after.adaptationServes());
        assertEquals(before.adaptedRankingAccuracy(), after.adaptedRankingAccuracy(), 1e-12);
        assertEquals(before.frozenRankingAccuracy(), after.frozenRankingAccuracy(), 1e-12);
        // The same but for the calibration's last few answers, which the running learner had not yet rebuilt its map with.
        for (int i = 0; i < 10; i++) {
            Prompt essay = essay(random);
            Prompt question = question(random);
            assertEquals(served(before, 100, essay), served(after, 100, essay), 0.01 * served(before, 100, essay));
            assertEquals(served(before, 300, question), served(after, 300, question), 0.01 * served(before, 300, question));
        }
        assertTrue(served(after, 100, essay(random)) > served(after, 300, question(random)));
    }

    @Test
    void theOrderIsSavedInTheStateFileAndAFormatOneFileStillLoads(@TempDir Path directory) throws IOException {
        BackendLearner before = learner(true);
        Random random = new Random(12);
        feedBackwards(before, random);
        LearnedStateFile file = new LearnedStateFile(directory);
        file.write(Map.of(before.key(), new LearnedStateFile.Entry(before.learnedFor(), before.state())));

        BackendLearner after = learner(true);
        assertTrue(after.restore(file.read().get(before.key()).state()));
        assertTrue(after.adaptationServes());
        assertArrayEquals(before.state().ranking(), after.state().ranking());
        assertArrayEquals(before.state().rankingShadow(), after.state().rankingShadow());

        String formatOne = Files.readString(file.path()).replace(LearnedStateFile.FORMAT, LearnedStateFile.FORMAT_1);
        Files.writeString(file.path(), formatOne);
        BackendLearner older = learner(true);
        assertTrue(older.restore(file.read().get(before.key()).state()));
        assertFalse(older.adaptationServes(), "a format 1 file holds no ranking adaptation");
        assertEquals(before.serviceTime(), older.serviceTime());
    }

    @Test
    void aStateThatDoesNotFitIsRefused() {
        BackendLearner before = learner(true);
        feed(before, 300, new Random(8), 100, 1_200, 300, 60);
        BackendLearner.LearnedState saved = before.state();
        double[] ranking = saved.ranking().clone();
        ranking[2 * RankingAdaptation.INPUTS] = -1; // a negative variance
        BackendLearner after = learner(true);
        assertFalse(after.restore(new BackendLearner.LearnedState(saved.serviceTime(), saved.calibration(), saved.shadow(),
                saved.repeats(), ranking, saved.rankingShadow())));
        assertFalse(after.restore(new BackendLearner.LearnedState(saved.serviceTime(), saved.calibration(), saved.shadow(),
                saved.repeats(), new double[] {1, 2, 3}, saved.rankingShadow())));
        double[] shadow = saved.rankingShadow().clone();
        shadow[5] = 7; // a length class that does not exist
        assertFalse(after.restore(new BackendLearner.LearnedState(saved.serviceTime(), saved.calibration(), saved.shadow(),
                saved.repeats(), saved.ranking(), shadow)));
        assertEquals(0, after.learned());
        assertArrayEquals(new RankingAdaptation().state(), after.state().ranking());
    }

    private static BackendLearner learner(boolean online) {
        return new BackendLearner(OnlineLearning.key("chat", "chat"), "http://127.0.0.1:9/ lexical", FLAGS, online);
    }

    /**
     * 1,500 answers in an order the frozen estimator has backwards: it says essays are short (100) and
     * questions long (300); this backend writes 1,200 tokens for an essay and 60 for a question.
     */
    private static void feedBackwards(BackendLearner learner, Random random) {
        feed(learner, 1_500, random, 100, 1_200, 300, 60);
    }

    /** Essays and questions at random, each estimated and answered as given, with some spread in the answers. */
    private static void feed(BackendLearner learner, int count, Random random, double essayEstimate, long essayAnswer,
            double questionEstimate, long questionAnswer) {
        for (int i = 0; i < count; i++) {
            boolean essay = random.nextBoolean();
            double spread = Math.exp(0.2 * random.nextGaussian());
            long actual = Math.round((essay ? essayAnswer : questionAnswer) * spread);
            Prompt prompt = essay ? essay(random) : question(random);
            learner.learn(new CompletedRequest(essay ? essayEstimate : questionEstimate, OptionalInt.empty(), 40, actual, 1,
                    0.05 + 0.02 * actual, OptionalLong.empty(), false, Optional.of(RequestFeatures.of(prompt))));
        }
    }

    private static double served(BackendLearner learner, double frozen, Prompt prompt) {
        return learner.tokens(frozen, PromptFeatures.of(prompt), OptionalLong.empty(), OptionalInt.empty());
    }

    private static Prompt essay(Random random) {
        String topic = TOPICS[random.nextInt(TOPICS.length)];
        return new Prompt("Write a detailed essay on " + topic + ": its history, how it works, why it matters today, and what"
                + " the future may hold for it. Use several sections with headings and give examples.");
    }

    private static Prompt question(Random random) {
        return new Prompt("What is " + TOPICS[random.nextInt(TOPICS.length)] + "?");
    }
}
