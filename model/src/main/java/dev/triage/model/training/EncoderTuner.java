package dev.triage.model.training;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.training.GradientCollector;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.onnxruntime.OrtException;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.evaluation.RankingMetrics;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.ranker.SentenceEncoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Tunes the sentence encoder for answer length, as PARS fine-tunes its BERT: every transformer layer of the encoder
 * ({@link TunableBert}, from the int8 graph's weights) and a throwaway head over the embedding and the standardized
 * request features are trained together on the head's pairwise margin loss, pairs drawn within one answering model's
 * answers as {@link RankerTrainer} draws them. The tuned layers are quantized back into the graph
 * ({@link Int8BertWeights}); the served head is then trained on that graph's embeddings as on any encoder's.
 *
 * <p>A step whose gradient is not finite (one in a few hundred, where a long prompt's attention saturates) is skipped:
 * the weights go back to the last snapshot, taken every {@value #SNAPSHOT_STEPS} steps, with fresh optimizers. The
 * gradients are zeroed by writing zeros, since DJL's own zeroing leaves a NaN in place.
 */
final class EncoderTuner {

    private static final int SNAPSHOT_STEPS = 25;
    private static final int REPORT_STEPS = 50;
    /** Prompts scored at once when measuring, with no gradient kept. */
    private static final int SCORING_BATCH = 64;

    private final TunableBert bert;
    private final EncoderTuning tuning;
    private final RankerSettings settings;
    private final NDArray[] head;

    private EncoderTuner(TunableBert bert, EncoderTuning tuning, RankerSettings settings, int inputs) {
        this.bert = bert;
        this.tuning = tuning;
        this.settings = settings;
        Random random = new Random(settings.seed());
        NDManager manager = bert.manager();
        int hidden = settings.hiddenUnits();
        this.head = new NDArray[] {gaussian(manager, random, new Shape(inputs, hidden), Math.sqrt(2.0 / inputs)),
                manager.zeros(new Shape(hidden)), gaussian(manager, random, new Shape(hidden, 1), Math.sqrt(1.0 / hidden)),
                manager.zeros(new Shape(1))};
    }

    /** Prompts as the tuner reads them: word-piece ids and standardized request features. */
    private record Inputs(List<long[]> ids, float[][] features) {

        static Inputs of(List<LabeledPrompt> prompts, float[][] features, SentenceEncoder tokenizer, FeatureScaling scaling) {
            return new Inputs(prompts.stream().map(p -> tokenizer.ids(p.prompt())).toList(),
                    scaling.inputs(new float[prompts.size()][0], features));
        }
    }

    /** The tuned graph and what the ranker's metadata records of it (its file name and digest included). */
    record Result(EncoderGraph graph, RankerMetadata.TunedEncoder metadata) {}

    /**
     * Tunes {@code graph}'s layers on {@code train} (the head's training prompts) and returns the tuned graph, to be
     * written as {@code file} beside the head, its throwaway head's ranking accuracy on {@code validation} before and
     * after recorded.
     */
    static Result tune(EncoderGraph graph, List<LabeledPrompt> train, List<LabeledPrompt> validation, RankerSettings settings,
            EncoderTuning tuning, String file) throws IOException {
        Int8BertWeights weights = Int8BertWeights.of(graph.onnx());
        float[][] trainFeatures = LexicalTrainer.featureRows(train);
        FeatureScaling scaling = RankerTrainer.featureScaling(train, trainFeatures);
        Inputs trainInputs;
        Inputs validationInputs;
        try (SentenceEncoder tokenizer = SentenceEncoder.open(graph, settings.maxTokens(), 1)) {
            trainInputs = Inputs.of(train, trainFeatures, tokenizer, scaling);
            validationInputs = Inputs.of(validation, LexicalTrainer.featureRows(validation), tokenizer, scaling);
        } catch (OrtException e) {
            throw new IOException("the sentence encoder cannot run: " + e.getMessage(), e);
        }
        try (TunableBert bert = new TunableBert(graph.spec(), weights)) {
            EncoderTuner tuner = new EncoderTuner(bert, tuning, settings, graph.spec().dimensions() + scaling.means().length);
            double before = tuner.accuracy(validation, validationInputs);
            System.out.printf(Locale.ROOT, "tuning %s's %d layers: %d steps of %d pairs; validation accuracy %.4f before%n",
                    graph.spec().id(), weights.layers(), tuning.steps(), tuning.pairs(), before);
            tuner.train(train, trainInputs);
            double after = tuner.accuracy(validation, validationInputs);
            System.out.printf(Locale.ROOT, "validation accuracy %.4f after tuning%n", after);
            EncoderGraph tuned = new EncoderGraph(graph.spec(), weights.withLayers(0, bert.layerTensors()), true);
            return new Result(tuned, new RankerMetadata.TunedEncoder(file, tuned.sha256(), weights.layers(),
                    tuning.steps(), tuning.pairs(), tuning.learningRate(), tuning.headLearningRate(), settings.seed(),
                    List.of(before, after), Int8BertWeights.QUANTIZATION));
        }
    }

    private void train(List<LabeledPrompt> prompts, Inputs inputs) {
        SplittableRandom random = new SplittableRandom(settings.seed());
        RankerTrainer.Groups groups = RankerTrainer.Groups.of(prompts, 2, settings.balanceStyles());
        List<NDArray> encoder = bert.parameters();
        List<NDArray> all = new ArrayList<>(encoder);
        all.addAll(List.of(head));
        all.forEach(parameter -> parameter.setRequiresGradient(true));
        Optimizer encoderOptimizer = adam(tuning.learningRate());
        Optimizer headOptimizer = adam(tuning.headLearningRate());
        float[][] snapshot = snapshot(all);
        double lossSum = 0;
        int skipped = 0;
        long start = System.nanoTime();
        for (int step = 1; step <= tuning.steps(); step++) {
            int[] batch = new int[2 * tuning.pairs()];
            for (int p = 0; p < tuning.pairs(); p++) {
                RankerTrainer.Pair pair = groups.drawPair(settings.minLengthDifference(), random);
                batch[2 * p] = pair.group().prompts()[pair.longer()];
                batch[2 * p + 1] = pair.group().prompts()[pair.shorter()];
            }
            float loss;
            try (NDManager stepArrays = bert.manager().newSubManager()) {
                try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                    all.forEach(parameter -> parameter.getGradient().set(new NDIndex(":"), 0));
                    NDArray scores = scores(stepArrays, batch, inputs).reshape(tuning.pairs(), 2);
                    // The margin loss on (longer, shorter): the longer answer's prompt should score higher by the margin.
                    NDArray margins = scores.get(":, 0").sub(scores.get(":, 1"));
                    NDArray lossArray = margins.neg().add((float) settings.margin()).maximum(0).mean();
                    collector.backward(lossArray);
                    loss = lossArray.getFloat();
                }
            }
            if (!Float.isFinite(loss) || !finiteGradients(all)) {
                skipped++;
                restore(all, snapshot);
                encoderOptimizer = adam(tuning.learningRate());
                headOptimizer = adam(tuning.headLearningRate());
                continue;
            }
            if (step % SNAPSHOT_STEPS == 1) {
                snapshot = snapshot(all);
            }
            for (int i = 0; i < all.size(); i++) {
                (i < encoder.size() ? encoderOptimizer : headOptimizer).update("p" + i, all.get(i), all.get(i).getGradient());
            }
            lossSum += loss;
            if (step % REPORT_STEPS == 0) {
                System.out.printf(Locale.ROOT, "step %d: loss %.4f, %.0f s%s%n", step, lossSum / REPORT_STEPS,
                        (System.nanoTime() - start) / 1e9, skipped > 0 ? ", " + skipped + " steps skipped" : "");
                lossSum = 0;
            }
        }
        all.forEach(parameter -> parameter.setRequiresGradient(false));
    }

    /** The throwaway head's scores of the prompts at {@code indexes}. */
    private NDArray scores(NDManager arrays, int[] indexes, Inputs inputs) {
        List<long[]> ids = new ArrayList<>(indexes.length);
        int featureCount = inputs.features()[0].length;
        float[] features = new float[indexes.length * featureCount];
        for (int k = 0; k < indexes.length; k++) {
            ids.add(inputs.ids().get(indexes[k]));
            System.arraycopy(inputs.features()[indexes[k]], 0, features, k * featureCount, featureCount);
        }
        NDArray x = bert.embed(arrays, ids).concat(arrays.create(features, new Shape(indexes.length, featureCount)), 1);
        return Activation.relu(x.matMul(head[0]).add(head[1])).matMul(head[2]).add(head[3]).reshape(indexes.length);
    }

    /** Algorithm 1's ranking accuracy of the throwaway head on {@code prompts}, pooled over the answering models. */
    private double accuracy(List<LabeledPrompt> prompts, Inputs inputs) {
        float[] scores = new float[prompts.size()];
        for (int start = 0; start < prompts.size(); start += SCORING_BATCH) {
            int[] indexes = new int[Math.min(SCORING_BATCH, prompts.size() - start)];
            for (int k = 0; k < indexes.length; k++) {
                indexes[k] = start + k;
            }
            try (NDManager arrays = bert.manager().newSubManager()) {
                System.arraycopy(scores(arrays, indexes, inputs).toFloatArray(), 0, scores, start, indexes.length);
            }
        }
        Map<String, List<double[]>> byModel = new LinkedHashMap<>();
        for (int i = 0; i < prompts.size(); i++) {
            for (PromptAnswer answer : prompts.get(i).answers()) {
                byModel.computeIfAbsent(answer.modelKey(), k -> new ArrayList<>())
                        .add(new double[] {scores[i], answer.answerTokens()});
            }
        }
        RankingMetrics.PairCount pairs = RankingMetrics.PairCount.NONE;
        for (List<double[]> answers : byModel.values()) {
            pairs = pairs.plus(RankingMetrics.rankingPairs(answers.stream().mapToDouble(a -> a[0]).toArray(),
                    answers.stream().mapToDouble(a -> a[1]).toArray()));
        }
        return pairs.accuracy();
    }

    private static Optimizer adam(double learningRate) {
        return Optimizer.adam().optLearningRateTracker(Tracker.fixed((float) learningRate)).build();
    }

    /** Whether every gradient is finite: a NaN or an infinity anywhere makes its sum one. */
    private boolean finiteGradients(List<NDArray> parameters) {
        try (NDManager check = bert.manager().newSubManager()) {
            for (NDArray parameter : parameters) {
                NDArray sum = parameter.getGradient().sum();
                sum.attach(check);
                if (!Float.isFinite(sum.getFloat())) {
                    return false;
                }
            }
            return true;
        }
    }

    private static float[][] snapshot(List<NDArray> parameters) {
        return parameters.stream().map(NDArray::toFloatArray).toArray(float[][]::new);
    }

    private static void restore(List<NDArray> parameters, float[][] snapshot) {
        for (int i = 0; i < parameters.size(); i++) {
            parameters.get(i).set(snapshot[i]);
        }
    }

    private static NDArray gaussian(NDManager manager, Random random, Shape shape, double scale) {
        float[] values = new float[(int) shape.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (random.nextGaussian() * scale);
        }
        return manager.create(values, shape).duplicate();
    }
}
