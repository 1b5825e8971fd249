package dev.triage.model.training;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.LengthClass;
import dev.triage.model.OnnxSessions;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptResponseLoader;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.ranker.RankerModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Heads trained here, on the real encoder's embeddings of {@link TinyModels}' obvious prompts: eight
 * topics to train on, four held out. Each objective must put every held-out essay above every
 * held-out one-sentence question.
 */
class RankerTrainerTest {

    private static List<LabeledPrompt> train;
    private static List<LabeledPrompt> heldOut;
    private static float[][] trainEmbeddings;
    private static float[][] heldOutEmbeddings;

    @BeforeAll
    static void embed() throws Exception {
        List<LabeledPrompt> corpus = TinyModels.corpus();
        train = corpus.subList(0, 24);
        heldOut = corpus.subList(24, 36);
        float[][] all = TinyModels.embed(corpus, TinyModels.RANKER_SETTINGS.encoder(), TinyModels.RANKER_SETTINGS.maxTokens());
        trainEmbeddings = Arrays.copyOfRange(all, 0, 24);
        heldOutEmbeddings = Arrays.copyOfRange(all, 24, 36);
    }

    @Test
    void everyObjectiveLearnsToPutEssaysAboveOneSentenceAnswers() {
        for (RankingObjective objective : RankingObjective.values()) {
            RankingHead head = RankerTrainer.trainHead(train, trainEmbeddings,
                    TinyModels.RANKER_SETTINGS.with(objective, objective == RankingObjective.PAIRWISE ? 0.2 : 0));
            double highestBrief = Double.NEGATIVE_INFINITY;
            double lowestEssay = Double.POSITIVE_INFINITY;
            for (int i = 0; i < heldOut.size(); i++) {
                double score = head.score(heldOutEmbeddings[i]);
                if (i % 3 == 0) {
                    highestBrief = Math.max(highestBrief, score);
                } else if (i % 3 == 2) {
                    lowestEssay = Math.min(lowestEssay, score);
                }
            }
            assertTrue(lowestEssay > highestBrief, objective + ": essays from " + lowestEssay + ", briefs up to " + highestBrief);
        }
    }

    @Test
    void theInstructionSetsJoinTrainingOnlyWhenAskedAndNeverMoveTheStandardization() {
        PromptCorpus corpus = PromptCorpus.of(List.of(
                new PromptAnswer("Explain tides in detail.", 900, PromptSource.ALPACA_EVAL, "model-a"),
                new PromptAnswer("Name a colour.", 10, PromptSource.ALPACA_EVAL, "model-a"),
                new PromptAnswer("Write a poem about the sea and its tides.", 120, PromptSource.CURATED,
                        PromptResponseLoader.ALPACA_GPT4_MODEL)));
        List<LabeledPrompt> targets = corpus.prompts();
        List<LabeledPrompt> instructionSets = corpus.instructionSetPrompts(PromptSplit.TRAIN);
        assertEquals(1, instructionSets.size(), "the poem's text falls in the training split");
        RankerSettings with = TinyModels.RANKER_SETTINGS.withInstructionSets(true);
        assertEquals(targets, RankerTrainer.trainingPrompts(corpus, targets, TinyModels.RANKER_SETTINGS));
        List<LabeledPrompt> expected = new ArrayList<>(targets);
        expected.addAll(instructionSets);
        assertEquals(expected, RankerTrainer.trainingPrompts(corpus, targets, with), "the training split's, after the targets'");
        FeatureScaling targetsAlone = FeatureScaling.fit(LexicalTrainer.featureRows(targets));
        List<LabeledPrompt> trained = RankerTrainer.trainingPrompts(corpus, targets, with);
        FeatureScaling fitted = RankerTrainer.featureScaling(trained, LexicalTrainer.featureRows(trained));
        assertArrayEquals(targetsAlone.means(), fitted.means());
        assertArrayEquals(targetsAlone.scales(), fitted.scales());
    }

    @Test
    void theShippedFormIsCalibratedToTokensAndDescribesItself() {
        TrainedRanker trained = RankerTrainer.train(train, trainEmbeddings, heldOut, heldOutEmbeddings, TinyModels.RANKER_SETTINGS);
        RankerMetadata metadata = trained.metadata();
        assertEquals(EncoderSpec.MINILM.displayName(), metadata.encoder());
        assertEquals(64, metadata.maxTokens());
        assertEquals("pairwise", metadata.objective());
        assertEquals(0.2, metadata.minLengthDifference());
        assertEquals(1.0, metadata.margin());
        assertEquals(24, metadata.training().prompts());
        assertEquals(12, metadata.training().calibrationPrompts());
        assertEquals(List.of("alpaca_eval"), metadata.data().stream().map(d -> d.source()).toList());
        try (RankerModel model = trained.model("tiny")) {
            List<Estimate> estimates = model.estimates(heldOutEmbeddings, LexicalTrainer.featureRows(heldOut));
            for (int i = 0; i < estimates.size(); i += 3) {
                assertEquals(LengthClass.SHORT, estimates.get(i).lengthClass(), "brief " + i + ": " + estimates.get(i));
                assertEquals(LengthClass.LONG, estimates.get(i + 2).lengthClass(), "essay " + (i + 2) + ": " + estimates.get(i + 2));
            }
        }
    }

    /**
     * The training prompts have no system prompt, so the head learned nothing from that column: a
     * request that sends one (most clients do) is scored as the same request without it.
     */
    @Test
    void anInputThatNeverVariedInTrainingMovesNoScore() {
        TrainedRanker trained = RankerTrainer.train(train, trainEmbeddings, heldOut, heldOutEmbeddings, TinyModels.RANKER_SETTINGS);
        float[][] bare = LexicalTrainer.featureRows(heldOut);
        float[][] withSystem = heldOut.stream().map(p -> RequestFeatures.of(new dev.triage.features.Prompt(p.prompt(), 1, 400,
                p.prompt().length() + 400))).toArray(float[][]::new);
        try (RankerModel model = trained.model("tiny")) {
            List<Estimate> estimates = model.estimates(heldOutEmbeddings, bare);
            List<Estimate> withSystemEstimates = model.estimates(heldOutEmbeddings, withSystem);
            for (int i = 0; i < estimates.size(); i++) {
                assertEquals(estimates.get(i).expectedTokens(), withSystemEstimates.get(i).expectedTokens(), "prompt " + i);
            }
        }
        float[][] inputs = {{1, 0, 2, 7}, {3, 0, 1, 7}, {2, 0, 5, 7}};
        assertArrayEquals(new boolean[] {false, true, false, true}, RankerTrainer.constantInputs(inputs));
        RankingHead head = RankingHead.initialized(4, 3, new Random(5)).ignoring(RankerTrainer.constantInputs(inputs));
        assertEquals(head.score(new float[] {1, 0, 2, 7}), head.score(new float[] {1, 5, 2, -3}));
    }

    /** Serving runs the exported graph, scaling and length prior included; it must score as the Java head that was trained. */
    @Test
    void theOnnxHeadScoresAsTheJavaHead() {
        Random random = new Random(11);
        float[][] trainFeatures = LexicalTrainer.featureRows(train);
        FeatureScaling scaling = FeatureScaling.fit(trainFeatures);
        RankingHead trainedHead = RankerTrainer.trainHead(train, scaling.inputs(trainEmbeddings, trainFeatures),
                TinyModels.RANKER_SETTINGS).roundedToFloat();
        RankingHead randomHead = RankingHead.initialized(EncoderSpec.DEFAULT.dimensions() + RequestFeatures.COUNT, 48, random);
        for (int i = 0; i < randomHead.parameters.length; i++) {
            randomHead.parameters[i] += 0.05 * random.nextGaussian();
        }
        float[][] embeddings = randomEmbeddings(random, 64);
        float[][] features = randomFeatures(random, 64);
        TrainedRanker template = RankerTrainer.train(train, trainEmbeddings, heldOut, heldOutEmbeddings, TinyModels.RANKER_SETTINGS);
        for (RankingHead head : List.of(trainedHead, randomHead.roundedToFloat(),
                randomHead.withPrior(RankerTrainer.lengthInput(EncoderSpec.DEFAULT), 0.7, 0.5).roundedToFloat())) {
            TrainedRanker exported = new TrainedRanker(OnnxRankingHeadWriter.write(head, scaling), template.metadata());
            try (RankerModel model = exported.model("parity")) {
                float[] scores = model.scores(embeddings, features);
                for (int i = 0; i < embeddings.length; i++) {
                    assertEquals(head.score(scaling.input(embeddings[i], features[i])), scores[i], 1e-5, "prompt " + i);
                }
            }
        }
    }

    /**
     * The stacked graph serves the head and the trees trained on it: its head's score must be the Java
     * head's, and its score what XGBoost4J predicts from the features and that head score, plus the tie break.
     */
    @Test
    void theStackedGraphScoresAsTheHeadAndAsXGBoostPredictsFromItsScore() throws Exception {
        XGBoostNative.assumeAvailable();
        float[][] trainFeatures = LexicalTrainer.featureRows(train);
        FeatureScaling scaling = FeatureScaling.fit(trainFeatures);
        float[][] trainInputs = scaling.inputs(trainEmbeddings, trainFeatures);
        RankingHead head = RankerTrainer.trainHead(train, trainInputs, TinyModels.STACKED_RANKER_SETTINGS).roundedToFloat();
        byte[] trees = RankerTrainer.stackedTrees(train, trainFeatures, trainInputs, TinyModels.STACKED_RANKER_SETTINGS);
        Random random = new Random(13);
        float[][] embeddings = new float[64 + heldOut.size()][];
        float[][] features = new float[embeddings.length][];
        System.arraycopy(randomEmbeddings(random, 64), 0, embeddings, 0, 64);
        System.arraycopy(randomFeatures(random, 64), 0, features, 0, 64);
        System.arraycopy(heldOutEmbeddings, 0, embeddings, 64, heldOut.size());
        System.arraycopy(LexicalTrainer.featureRows(heldOut), 0, features, 64, heldOut.size());

        float[] headScores;
        float[] scores;
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        try (OrtSession session = OnnxSessions.singleThreaded(environment, OnnxRankingHeadWriter.write(head, scaling, trees));
                OnnxTensor embeddingInput = OnnxTensor.createTensor(environment, embeddings);
                OnnxTensor featureInput = OnnxTensor.createTensor(environment, features);
                OrtSession.Result result = session.run(Map.of(RankerModel.INPUT, embeddingInput, RankerModel.FEATURES, featureInput),
                        Set.of(RankerModel.SCORE, RankerModel.HEAD_SCORE))) {
            headScores = flatScores((float[][]) result.get(RankerModel.HEAD_SCORE).orElseThrow().getValue());
            scores = flatScores((float[][]) result.get(RankerModel.SCORE).orElseThrow().getValue());
        }
        int columns = RequestFeatures.COUNT + 1;
        float[] stackRows = new float[embeddings.length * columns];
        for (int i = 0; i < embeddings.length; i++) {
            assertEquals(head.score(scaling.input(embeddings[i], features[i])), headScores[i], 1e-5, "head, prompt " + i);
            System.arraycopy(features[i], 0, stackRows, i * columns, RequestFeatures.COUNT);
            stackRows[i * columns + RequestFeatures.COUNT] = headScores[i];
        }
        Booster booster = XGBoost.loadModel(trees);
        DMatrix matrix = new DMatrix(stackRows, embeddings.length, columns, Float.NaN);
        float[][] expected = booster.predict(matrix);
        matrix.dispose();
        booster.dispose();
        double lowest = Double.MAX_VALUE;
        double highest = -Double.MAX_VALUE;
        for (int i = 0; i < embeddings.length; i++) {
            double stacked = expected[i][0] + OnnxRankingHeadWriter.TIE_BREAK * headScores[i];
            assertEquals(stacked, scores[i], 1e-5 * Math.max(1, Math.abs(stacked)), "trees, prompt " + i);
            lowest = Math.min(lowest, scores[i]);
            highest = Math.max(highest, scores[i]);
        }
        assertTrue(highest - lowest > 0.5, "the trees score from " + lowest + " to " + highest);
        assertEquals(embeddings.length, distinct(scores), "prompts the head scored apart must not tie");
    }

    private static long distinct(float[] values) {
        return IntStream.range(0, values.length).mapToDouble(i -> values[i]).distinct().count();
    }

    private static float[] flatScores(float[][] column) {
        float[] scores = new float[column.length];
        for (int i = 0; i < column.length; i++) {
            scores[i] = column[i][0];
        }
        return scores;
    }

    /** Unit vectors, as the encoder's embeddings are. */
    private static float[][] randomEmbeddings(Random random, int count) {
        float[][] embeddings = new float[count][EncoderSpec.DEFAULT.dimensions()];
        for (float[] embedding : embeddings) {
            double norm = 0;
            for (int d = 0; d < embedding.length; d++) {
                embedding[d] = (float) random.nextGaussian();
                norm += embedding[d] * embedding[d];
            }
            for (int d = 0; d < embedding.length; d++) {
                embedding[d] /= (float) Math.sqrt(norm);
            }
        }
        return embeddings;
    }

    private static float[][] randomFeatures(Random random, int count) {
        float[][] features = new float[count][RequestFeatures.COUNT];
        for (float[] row : features) {
            for (int f = 0; f < row.length; f++) {
                row[f] = (float) (3 * random.nextGaussian());
            }
        }
        return features;
    }

    @Test
    void aStackedModelIsTrainedEndToEndAndSaysHowInItsMetadata() {
        XGBoostNative.assumeAvailable();
        TrainedRanker trained = RankerTrainer.train(train, trainEmbeddings, heldOut, heldOutEmbeddings,
                TinyModels.STACKED_RANKER_SETTINGS);
        RankerMetadata.Stacking stacking = trained.metadata().training().stacking();
        assertEquals(2, stacking.folds());
        assertEquals(TinyModels.SETTINGS.trees(), stacking.trees());
        try (RankerModel model = trained.model("tiny, stacked")) {
            List<Estimate> estimates = model.estimates(heldOutEmbeddings, LexicalTrainer.featureRows(heldOut));
            for (int i = 0; i < estimates.size(); i += 3) {
                assertTrue(estimates.get(i + 2).expectedTokens() > estimates.get(i).expectedTokens(),
                        "essay " + (i + 2) + " " + estimates.get(i + 2) + " above brief " + i + " " + estimates.get(i));
            }
        }
    }

    /** The corpus keeps a prompt found in two sources twice; an out-of-fold score must not come from a head that saw its twin. */
    @Test
    void aPromptInTwoSourcesFallsInOneFold() {
        for (String text : List.of("Write a haiku about tides.", "  Explain   JAZZ\n", "What is a volcano?")) {
            String twin = text.strip().toUpperCase(Locale.ROOT);
            LabeledPrompt alpaca = new LabeledPrompt(text, PromptSource.ALPACA_EVAL, PromptSplit.TRAIN,
                    List.of(new PromptAnswer(text, 100, PromptSource.ALPACA_EVAL, "m")));
            LabeledPrompt arena = new LabeledPrompt(twin, PromptSource.ARENA_HARD_V01, PromptSplit.TRAIN,
                    List.of(new PromptAnswer(twin, 900, PromptSource.ARENA_HARD_V01, "n")));
            assertEquals(RankerTrainer.fold(alpaca, 5), RankerTrainer.fold(arena, 5), text);
        }
    }

    /** A verbose model with a tenth of a terse one's answers: drawn for a tenth of the examples, or half with the styles balanced. */
    @Test
    void balancedStylesDrawTheLongAnswerStyleAsOftenAsTheChatStyle() {
        List<LabeledPrompt> prompts = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            String text = "Prompt " + i;
            List<PromptAnswer> answers = new ArrayList<>();
            answers.add(new PromptAnswer(text, 50 + i, PromptSource.ALPACA_EVAL, "terse"));
            if (i % 10 == 0) {
                answers.add(new PromptAnswer(text, 700 + i, PromptSource.ALPACA_EVAL, "verbose"));
            }
            prompts.add(new LabeledPrompt(text, PromptSource.ALPACA_EVAL, PromptSplit.TRAIN, answers));
        }
        for (boolean balanced : new boolean[] {false, true}) {
            RankerTrainer.Groups groups = RankerTrainer.Groups.of(prompts, 2, balanced);
            SplittableRandom random = new SplittableRandom(3);
            int verbose = 0;
            int draws = 20_000;
            for (int d = 0; d < draws; d++) {
                verbose += groups.draw(random).prompts().length == 10 ? 1 : 0;
            }
            assertEquals(balanced ? 0.5 : 10 / 110.0, verbose / (double) draws, 0.02, "balanced " + balanced);
        }
    }

    @Test
    void dataWithoutPairsThatDifferEnoughIsAClearError() {
        List<LabeledPrompt> same = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String text = "Prompt " + i;
            same.add(new LabeledPrompt(text, PromptSource.ALPACA_EVAL, PromptSplit.TRAIN,
                    List.of(new PromptAnswer(text, 100 + i, PromptSource.ALPACA_EVAL, "m"))));
        }
        float[][] embeddings = Arrays.copyOf(trainEmbeddings, 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RankerTrainer.trainHead(same, embeddings, TinyModels.RANKER_SETTINGS));
        assertTrue(e.getMessage().startsWith("prompts: no pair of answers by one model differs in length by 0.2"), e.getMessage());
    }
}
