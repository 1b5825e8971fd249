package dev.triage.model.training;

import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptAnswer;
import dev.triage.model.data.PromptSource;
import dev.triage.model.data.PromptSplit;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Models trained in a second on a few dozen prompts of three obvious kinds — one-sentence questions
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

    /** Trains on {@code prompts} and writes the model and its metadata ({@code x.onnx}, {@code x.json}). */
    public static void write(List<LabeledPrompt> prompts, Path onnxFile) throws IOException {
        ClassifierTrainer.train(prompts, SETTINGS).writeTo(onnxFile);
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
