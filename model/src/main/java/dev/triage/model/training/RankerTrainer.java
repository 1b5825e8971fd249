package dev.triage.model.training;

import dev.triage.features.RequestFeatures;
import dev.triage.model.data.AnswerTokens;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.data.PromptText;
import dev.triage.model.data.TargetModels;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.ranker.RankerModel;
import dev.triage.model.ranker.ScoreCalibration;
import dev.triage.model.ranker.SentenceEncoder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Trains the ranker's head on frozen sentence embeddings beside the request's standardized
 * {@link RequestFeatures} ({@link FeatureScaling}), PARS's way or, for the comparison PARS
 * makes, pointwise or listwise; stacks trees on the head's score where the settings ask for them
 * ({@link TreeStacking}); then exports the head (and trees) to one ONNX graph and fits the calibration
 * from that graph's score to tokens on the validation split.
 *
 * <p>What is compared with what: an answer's length says something about its prompt only next to
 * answers <em>by the same model</em> (one model writes three times as much as another to the same
 * prompt), and that is how {@link dev.triage.model.evaluation.Evaluation} measures too. So every
 * pair and every list is drawn from one answering model's answers in one source: pairwise, two of
 * its prompts, labeled by which of its two answers is longer and kept only when the lengths differ
 * by at least δ relative to the longer (PARS's {@code min_length_difference}); listwise, a list of
 * its prompts ordered by its answers' lengths. A prompt pair that most target models order the
 * same way is drawn once per model, so the head learns the family's consensus, and pairs the models
 * disagree on cancel out. Answering models are drawn in proportion to their answers, prompts
 * uniformly within one; pointwise draws answers uniformly.
 *
 * <pre>{@code
 * TrainedRanker ranker = RankerTrainer.train(train, trainEmbeddings, validation, validationEmbeddings,
 *         RankerSettings.DEFAULTS);
 * }</pre>
 */
public final class RankerTrainer {

    static final String STACKING = "trees over the request features and the head's score, each training prompt scored by a "
            + "head trained on the other folds (prompt i in fold i mod folds); squared error on log answer length less the "
            + "answering model's mean, weighted as the lexical trees; never lower for a higher head score or a longer prompt "
            + "or conversation";

    static final String PAIRING = "examples drawn within one answering model's answers in one source (models in proportion "
            + "to their answers, prompts uniformly within a model); pairwise: two prompts labeled by which answer is longer, "
            + "kept when |L_A - L_B| / max(L_A, L_B) >= minLengthDifference; listwise: listSize prompts ordered by answer "
            + "length; pointwise: answers uniformly";

    static final String BALANCED_STYLES = "; the long-answer style's models drawn as often in all as the chat style's";

    static final String INSTRUCTION_SETS = "; the instruction sets' training prompts added, each generator's answers a model "
            + "of their own";

    /** Draws in a row that may fail to find a pair differing by δ before the data is declared unusable. */
    private static final int MAX_REJECTIONS = 100_000;

    /** The head's input that the length prior reads: the standardized log prompt length, after the embedding. */
    static int lengthInput(EncoderSpec encoder) {
        return encoder.dimensions() + RequestFeatures.LOG_PROMPT_TOKENS;
    }

    private RankerTrainer() {}

    /**
     * The prompts a head is trained on: {@code train}, a split (or part of one) of {@code corpus}, and
     * the instruction sets' training prompts where the settings add them.
     */
    static List<LabeledPrompt> trainingPrompts(PromptCorpus corpus, List<LabeledPrompt> train, RankerSettings settings) {
        if (!settings.instructionSets()) {
            return train;
        }
        List<LabeledPrompt> prompts = new ArrayList<>(train);
        prompts.addAll(corpus.instructionSetPrompts(PromptSplit.TRAIN));
        return prompts;
    }

    /**
     * The standardization of the request features over the target models' training prompts, the traffic the head is
     * to serve and on which the length prior's threshold is set; the instruction sets' prompts, shorter, would move it.
     */
    static FeatureScaling featureScaling(List<LabeledPrompt> train, float[][] features) {
        return FeatureScaling.fit(IntStream.range(0, train.size()).filter(i -> train.get(i).source() != PromptSource.CURATED)
                .mapToObj(i -> features[i]).toArray(float[][]::new));
    }

    /**
     * The shipped form: a head trained on {@code train}, calibrated on {@code validation}, exported
     * to ONNX, with its metadata (evaluation figures are added later).
     *
     * @param trainEmbeddings the embedding of each training prompt, in order
     * @param validationEmbeddings the embedding of each validation prompt, in order
     */
    public static TrainedRanker train(List<LabeledPrompt> train, float[][] trainEmbeddings, List<LabeledPrompt> validation,
            float[][] validationEmbeddings, RankerSettings settings) {
        float[][] trainFeatures = LexicalTrainer.featureRows(train);
        FeatureScaling scaling = featureScaling(train, trainFeatures);
        float[][] trainInputs = scaling.inputs(trainEmbeddings, trainFeatures);
        RankingHead head = servedHead(train, trainInputs, settings);
        byte[] onnx = settings.stacking().stacked()
                ? OnnxRankingHeadWriter.write(head, scaling, stackedTrees(train, trainFeatures, trainInputs, settings))
                : OnnxRankingHeadWriter.write(head, scaling);
        ScoreCalibration calibration;
        try (RankerModel uncalibrated = new TrainedRanker(onnx, metadata(train, validation, settings,
                LexicalTrainer.placeholderCalibration())).model("trained model")) {
            calibration = IsotonicCalibration.fitPrompts(
                    uncalibrated.scores(validationEmbeddings, LexicalTrainer.featureRows(validation)), validation);
        }
        return new TrainedRanker(onnx, metadata(train, validation, settings, calibration));
    }

    private static RankerMetadata metadata(List<LabeledPrompt> train, List<LabeledPrompt> validation, RankerSettings settings,
            ScoreCalibration calibration) {
        TreeStacking stacking = settings.stacking();
        RankerMetadata.Stacking stacked = stacking.stacked() ? new RankerMetadata.Stacking(stacking.folds(),
                stacking.boosting().trees(), stacking.boosting().maxDepth(), stacking.boosting().learningRate(),
                stacking.boosting().seed(), STACKING) : null;
        RankerMetadata.Training training = new RankerMetadata.Training(settings.hiddenUnits(), settings.learningRate(),
                settings.steps(), settings.batchSize(), settings.listSize(), settings.weightDecay(), settings.seed(),
                settings.lengthPrior(), settings.lengthPriorThreshold(), train.size(), train.stream().mapToInt(p -> p.answers().size()).sum(),
                PAIRING + (settings.balanceStyles() ? BALANCED_STYLES : "") + (settings.instructionSets() ? INSTRUCTION_SETS : ""),
                validation.size(), TargetModels.EXCLUDED, settings.balanceStyles(), stacked,
                (int) train.stream().filter(p -> p.source() == PromptSource.CURATED).count());
        EncoderSpec encoder = settings.encoder();
        return new RankerMetadata(encoder.displayName(), encoder.pooling().description, settings.maxTokens(),
                SentenceEncoder.TRUNCATION, RequestFeatures.SCHEMA_VERSION, RequestFeatures.NAMES,
                encoder.dimensions(), settings.objective().id(), settings.margin(), settings.minLengthDifference(),
                training, calibration, AnswerTokens.TOKENIZER, ClassifierTrainer.dataSources(train), List.of(), null);
    }

    /**
     * A head trained on {@code inputs} with the length prior added, its weights rounded as the ONNX
     * graph keeps them. Its weights on an input that never varied in training are zeroed: they kept
     * their random start, which only showed where that input does vary, as noise in the score (the
     * shared data has no system prompt, so a request with one moved every estimate).
     */
    private static RankingHead servedHead(List<LabeledPrompt> prompts, float[][] inputs, RankerSettings settings) {
        return trainHead(prompts, inputs, settings).ignoring(constantInputs(inputs))
                .withPrior(lengthInput(settings.encoder()), settings.lengthPrior(), settings.lengthPriorThreshold()).roundedToFloat();
    }

    /** Which columns of {@code inputs} take one value in every row. */
    static boolean[] constantInputs(float[][] inputs) {
        boolean[] constant = new boolean[inputs[0].length];
        Arrays.fill(constant, true);
        for (float[] row : inputs) {
            for (int i = 0; i < constant.length; i++) {
                constant[i] &= row[i] == inputs[0][i];
            }
        }
        return constant;
    }

    /**
     * XGBoost's JSON model of the trees stacked on the head ({@link TreeStacking}): over each training
     * prompt's raw features and the score given it by a head trained on the other folds ({@link #fold}).
     */
    static byte[] stackedTrees(List<LabeledPrompt> train, float[][] features, float[][] inputs, RankerSettings settings) {
        int folds = settings.stacking().folds();
        float[][] rows = new float[train.size()][];
        int[] foldOf = new int[train.size()];
        for (int i = 0; i < foldOf.length; i++) {
            foldOf[i] = fold(train.get(i), folds);
        }
        for (int fold = 0; fold < folds; fold++) {
            List<LabeledPrompt> others = new ArrayList<>();
            List<float[]> otherInputs = new ArrayList<>();
            for (int i = 0; i < train.size(); i++) {
                if (foldOf[i] != fold) {
                    others.add(train.get(i));
                    otherInputs.add(inputs[i]);
                }
            }
            RankingHead head = servedHead(others, otherInputs.toArray(float[][]::new), settings);
            for (int i = 0; i < train.size(); i++) {
                if (foldOf[i] == fold) {
                    rows[i] = Arrays.copyOf(features[i], RequestFeatures.COUNT + 1);
                    rows[i][RequestFeatures.COUNT] = (float) head.score(inputs[i]);
                }
            }
        }
        int[] monotone = LexicalTrainer.monotoneInLength(RequestFeatures.COUNT + 1);
        monotone[RequestFeatures.COUNT] = 1;
        return LexicalTrainer.boost(train, rows, monotone,
                new LexicalSettings(LexicalSettings.Objective.REGRESSION, settings.stacking().boosting()));
    }

    /**
     * The fold of a training prompt, by its normalized text ({@code String.hashCode} is the same on
     * every JVM): the corpus keeps a prompt found in two sources twice, and both must be on one side.
     */
    static int fold(LabeledPrompt prompt, int folds) {
        return Math.floorMod(PromptText.normalize(prompt.prompt()).hashCode(), folds);
    }

    /** Trains a head with Adam on {@code settings.objective()}, on each prompt's input (embedding and scaled features). */
    static RankingHead trainHead(List<LabeledPrompt> prompts, float[][] embeddings, RankerSettings settings) {
        if (embeddings.length != prompts.size()) {
            throw new IllegalArgumentException(embeddings.length + " embeddings for " + prompts.size() + " prompts");
        }
        if (prompts.isEmpty()) {
            throw new IllegalArgumentException("prompts: none to train on");
        }
        SplittableRandom random = new SplittableRandom(settings.seed());
        Groups groups = Groups.of(prompts, settings.objective() == RankingObjective.POINTWISE ? 1 : 2, settings.balanceStyles());
        RankingHead head = RankingHead.initialized(embeddings[0].length, settings.hiddenUnits(), new Random(settings.seed()));
        AdamOptimizer adam = new AdamOptimizer(head.parameters.length, settings.learningRate(), settings.weightDecay());
        Batch batch = new Batch(settings.batchSize(), settings.hiddenUnits());
        double[] gradient = new double[head.parameters.length];
        for (int step = 0; step < settings.steps(); step++) {
            batch.draw(groups, settings, random);
            for (int k = 0; k < batch.size; k++) {
                batch.scores[k] = head.forward(embeddings[batch.prompts[k]], batch.activations[k]);
            }
            batch.lossGradient(settings);
            Arrays.fill(gradient, 0);
            for (int k = 0; k < batch.size; k++) {
                head.backward(embeddings[batch.prompts[k]], batch.activations[k], batch.scoreGradients[k], gradient);
            }
            adam.step(head.parameters, gradient);
        }
        return head;
    }

    /** One answering model's answers in one source: (prompt index, answer length) pairs. */
    record Group(int[] prompts, int[] tokens) {}

    /** Two members of a group, by their index in it: the one with the longer answer, and the other. */
    record Pair(Group group, int longer, int shorter) {}

    /**
     * The groups examples are drawn from, each in proportion to its size, or, with the styles
     * balanced, in proportion to its share of its style's answers.
     */
    static final class Groups {
        final List<Group> groups = new ArrayList<>();
        final double[] cumulativeWeight;

        private Groups(Map<String, List<int[]>> members, int minimumSize, boolean balanceStyles) {
            for (List<int[]> group : members.values()) {
                if (group.size() >= minimumSize) {
                    groups.add(new Group(group.stream().mapToInt(m -> m[0]).toArray(), group.stream().mapToInt(m -> m[1]).toArray()));
                }
            }
            if (groups.isEmpty()) {
                throw new IllegalArgumentException("prompts: no answering model has " + minimumSize
                        + " or more answers (expected: at least one to draw examples from)");
            }
            int[] style = new int[groups.size()];
            double[] answersByStyle = new double[2];
            for (int g = 0; g < groups.size(); g++) {
                style[g] = AnswerStyle.isLong(groups.get(g).tokens()) ? 1 : 0;
                answersByStyle[style[g]] += groups.get(g).prompts().length;
            }
            cumulativeWeight = new double[groups.size()];
            double total = 0;
            for (int g = 0; g < groups.size(); g++) {
                Group group = groups.get(g);
                double styleAnswers = answersByStyle[style[g]];
                // Balanced, each style present draws half the examples, its models still in proportion to their answers.
                total += balanceStyles && answersByStyle[0] > 0 && answersByStyle[1] > 0
                        ? group.prompts().length / styleAnswers : group.prompts().length;
                cumulativeWeight[g] = total;
            }
        }

        static Groups of(List<LabeledPrompt> prompts, int minimumSize, boolean balanceStyles) {
            Map<String, List<int[]>> members = new LinkedHashMap<>();
            for (int i = 0; i < prompts.size(); i++) {
                for (PromptAnswer answer : prompts.get(i).answers()) {
                    members.computeIfAbsent(answer.modelKey(), k -> new ArrayList<>())
                            .add(new int[] {i, answer.answerTokens()});
                }
            }
            return new Groups(members, minimumSize, balanceStyles);
        }

        /**
         * Two members of one group whose answer lengths differ by at least {@code minLengthDifference} of the longer.
         *
         * @throws IllegalArgumentException when a hundred thousand draws in a row find none
         */
        Pair drawPair(double minLengthDifference, SplittableRandom random) {
            for (int attempt = 0; attempt < MAX_REJECTIONS; attempt++) {
                Group group = draw(random);
                int n = group.prompts().length;
                int a = random.nextInt(n);
                int b = random.nextInt(n - 1);
                b = b >= a ? b + 1 : b;
                int lengthA = group.tokens()[a];
                int lengthB = group.tokens()[b];
                if (lengthA == lengthB || (double) Math.abs(lengthA - lengthB) / Math.max(lengthA, lengthB) < minLengthDifference) {
                    continue;
                }
                return lengthA > lengthB ? new Pair(group, a, b) : new Pair(group, b, a);
            }
            throw new IllegalArgumentException("prompts: no pair of answers by one model differs in length by "
                    + minLengthDifference + " or more in " + MAX_REJECTIONS + " draws");
        }

        Group draw(SplittableRandom random) {
            double target = random.nextDouble() * cumulativeWeight[cumulativeWeight.length - 1];
            int index = Arrays.binarySearch(cumulativeWeight, target);
            return groups.get(index >= 0 ? Math.min(index + 1, groups.size() - 1) : -index - 1);
        }
    }

    /** One step's examples: the prompts scored, their scores, and the loss's gradient on each score. */
    private static final class Batch {
        final int[] prompts;
        final int[] tokens;
        final double[] scores;
        final double[] scoreGradients;
        final double[][] activations;
        final List<int[]> lists = new ArrayList<>();
        int size;

        Batch(int capacity, int hidden) {
            prompts = new int[capacity];
            tokens = new int[capacity];
            scores = new double[capacity];
            scoreGradients = new double[capacity];
            activations = new double[capacity][hidden];
        }

        void draw(Groups groups, RankerSettings settings, SplittableRandom random) {
            size = 0;
            lists.clear();
            switch (settings.objective()) {
                case PAIRWISE -> {
                    for (int p = 0; p < prompts.length / 2; p++) {
                        drawPair(groups, settings.minLengthDifference(), random);
                    }
                }
                case POINTWISE -> {
                    for (int k = 0; k < prompts.length; k++) {
                        Group group = groups.draw(random);
                        add(group, random.nextInt(group.prompts().length));
                    }
                }
                case LISTWISE -> {
                    for (int l = 0; l < prompts.length / settings.listSize(); l++) {
                        drawList(groups.draw(random), settings.listSize(), random);
                    }
                }
            }
        }

        /** Two prompts of one model whose answers differ enough; the one with the longer answer first. */
        private void drawPair(Groups groups, double minLengthDifference, SplittableRandom random) {
            Pair pair = groups.drawPair(minLengthDifference, random);
            add(pair.group(), pair.longer());
            add(pair.group(), pair.shorter());
        }

        /** Distinct prompts of one model, ordered by answer length, longest first (ties in random order). */
        private void drawList(Group group, int listSize, SplittableRandom random) {
            int n = group.prompts().length;
            int[] members = new int[n];
            Arrays.setAll(members, i -> i);
            int length = Math.min(listSize, n);
            for (int i = 0; i < length; i++) {
                int j = i + random.nextInt(n - i);
                int swap = members[i];
                members[i] = members[j];
                members[j] = swap;
            }
            Integer[] list = new Integer[length];
            for (int i = 0; i < length; i++) {
                list[i] = members[i];
            }
            Arrays.sort(list, (x, y) -> Integer.compare(group.tokens()[y], group.tokens()[x]));
            lists.add(new int[] {size, length});
            for (int member : list) {
                add(group, member);
            }
        }

        private void add(Group group, int member) {
            prompts[size] = group.prompts()[member];
            tokens[size] = group.tokens()[member];
            size++;
        }

        /** Fills {@link #scoreGradients} with the gradient of the batch's mean loss. */
        void lossGradient(RankerSettings settings) {
            double[] gradient = new double[2];
            switch (settings.objective()) {
                case PAIRWISE -> {
                    int pairs = size / 2;
                    for (int p = 0; p < pairs; p++) {
                        RankingLosses.marginRanking(scores[2 * p], scores[2 * p + 1], 1, settings.margin(), gradient);
                        scoreGradients[2 * p] = gradient[0] / pairs;
                        scoreGradients[2 * p + 1] = gradient[1] / pairs;
                    }
                }
                case POINTWISE -> {
                    for (int k = 0; k < size; k++) {
                        RankingLosses.logLengthL1(scores[k], tokens[k], gradient);
                        scoreGradients[k] = gradient[0] / size;
                    }
                }
                case LISTWISE -> {
                    for (int[] list : lists) {
                        double[] listScores = Arrays.copyOfRange(scores, list[0], list[0] + list[1]);
                        double[] listGradient = new double[list[1]];
                        RankingLosses.listMle(listScores, listGradient);
                        for (int k = 0; k < list[1]; k++) {
                            scoreGradients[list[0] + k] = listGradient[k] / lists.size();
                        }
                    }
                }
            }
        }
    }
}
