package dev.triage.model.training;

import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.SentenceEncoder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Models (classifiers and rankers) trained in a second on a few dozen prompts of three obvious kinds — one-sentence questions
 * (short answers), explanations (medium), multi-part essays (long) — for tests that need a real
 * model file. Shared with the proxy's tests through this module's test jar.
 */
public final class TinyModels {

    /** Few shallow trees: enough to separate the three kinds. */
    public static final TrainingSettings SETTINGS = new TrainingSettings(20, 3, 0.3, 42);

    private static final String[] TOPICS = {"the printing press", "volcanoes", "jazz", "the Roman empire", "tides",
        "photosynthesis", "the stock market", "chess openings", "glaciers", "the internet", "bees", "railways"};

    private TinyModels() {}

    /** 36 prompts, 12 of each kind, three answers each. */
    public static List<LabeledPrompt> corpus() {
        return corpus(false);
    }

    /**
     * The same prompts with the lengths of the short and the long kind swapped: a model that ranks
     * the other way round, for tests that must tell two models apart.
     */
    public static List<LabeledPrompt> invertedCorpus() {
        return corpus(true);
    }

    /** A small head trained briefly, with prompts cut at 64 tokens: enough for the three kinds. */
    public static final RankerSettings RANKER_SETTINGS = new RankerSettings(RankingObjective.PAIRWISE, 0.2, 1.0, 16, 0.01,
            300, 32, 8, 0, 42, EncoderSpec.DEFAULT, 64, 0, 0, false, TreeStacking.NONE, false);

    /** The same head with a few trees stacked on it over two folds. */
    public static final RankerSettings STACKED_RANKER_SETTINGS = RANKER_SETTINGS.withStacking(new TreeStacking(2, SETTINGS));

    /** Trains on {@code prompts} and writes the model and its metadata ({@code x.onnx}, {@code x.json}). */
    public static void write(List<LabeledPrompt> prompts, Path onnxFile) throws IOException {
        ClassifierTrainer.train(prompts, SETTINGS).writeTo(onnxFile);
    }

    /**
     * Trains a ranking head on {@code prompts} (calibrated on the same prompts) and writes it with
     * its metadata ({@code x.onnx}, {@code x.json}).
     */
    public static void writeRanker(List<LabeledPrompt> prompts, Path onnxFile) throws Exception {
        float[][] embeddings = embed(prompts, RANKER_SETTINGS.encoder(), RANKER_SETTINGS.maxTokens());
        RankerTrainer.train(prompts, embeddings, prompts, embeddings, RANKER_SETTINGS).writeTo(onnxFile);
    }

    /** The sentence embeddings of {@code prompts}, from the real encoder. */
    static float[][] embed(List<LabeledPrompt> prompts, EncoderSpec spec, int maxTokens) throws Exception {
        try (SentenceEncoder encoder = SentenceEncoder.open(spec, maxTokens)) {
            return encoder.embed(prompts.stream().map(LabeledPrompt::prompt).toList());
        }
    }

    /** The prompts of one kind: 0 one-sentence questions, 1 explanations, 2 multi-part essays. */
    static List<LabeledPrompt> ofKind(List<LabeledPrompt> prompts, int kind) {
        List<LabeledPrompt> selected = new ArrayList<>();
        for (int i = kind; i < prompts.size(); i += 3) {
            selected.add(prompts.get(i));
        }
        return selected;
    }

    private static List<LabeledPrompt> corpus(boolean inverted) {
        List<LabeledPrompt> prompts = new ArrayList<>();
        for (int i = 0; i < TOPICS.length; i++) {
            int[] brief = {20 + i, 35 + i, 60};
            int[] essay = {950 + i, 1200, 1500};
            prompts.add(prompt("What is " + TOPICS[i] + "? Answer in one sentence.", inverted ? essay : brief));
            prompts.add(prompt("Explain how " + TOPICS[i] + " works.", 300 + i, 420, 560));
            prompts.add(prompt("Write a detailed multi-part essay about " + TOPICS[i] + ", covering its history, causes, "
                    + "consequences and future, with a heading for each part.", inverted ? brief : essay));
        }
        return prompts;
    }

    private static LabeledPrompt prompt(String text, int... tokens) {
        List<PromptAnswer> answers = new ArrayList<>();
        for (int i = 0; i < tokens.length; i++) {
            answers.add(new PromptAnswer(text, tokens[i], PromptSource.ALPACA_EVAL, "model-" + i));
        }
        return new LabeledPrompt(text, PromptSource.ALPACA_EVAL, PromptSplit.TRAIN, answers);
    }
}
