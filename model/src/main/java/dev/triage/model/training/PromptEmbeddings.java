package dev.triage.model.training;

import dev.triage.model.Estimate;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.RankerModel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One encoder's sentence embedding of every prompt of a corpus, read from the {@link EmbeddingCache}
 * or encoded once.
 */
final class PromptEmbeddings {

    private final EncoderSpec encoder;
    private final Map<LabeledPrompt, float[]> byPrompt;

    private PromptEmbeddings(EncoderSpec encoder, Map<LabeledPrompt, float[]> byPrompt) {
        this.encoder = encoder;
        this.byPrompt = byPrompt;
    }

    /** The embeddings of every prompt a ranker may be trained or scored on: the corpus's and its instruction sets'. */
    static PromptEmbeddings of(PromptCorpus corpus, EncoderSpec encoder, int maxTokens, Path cacheDirectory) throws IOException {
        List<LabeledPrompt> prompts = new ArrayList<>(corpus.prompts());
        prompts.addAll(corpus.instructionSetPrompts(PromptSplit.TRAIN));
        return of(prompts, encoder, maxTokens, cacheDirectory);
    }

    static PromptEmbeddings of(List<LabeledPrompt> prompts, EncoderSpec encoder, int maxTokens, Path cacheDirectory)
            throws IOException {
        float[][] embeddings = EmbeddingCache.embed(prompts.stream().map(LabeledPrompt::prompt).toList(), encoder, maxTokens,
                cacheDirectory);
        Map<LabeledPrompt, float[]> byPrompt = new IdentityHashMap<>();
        for (int i = 0; i < prompts.size(); i++) {
            byPrompt.put(prompts.get(i), embeddings[i]);
        }
        return new PromptEmbeddings(encoder, byPrompt);
    }

    EncoderSpec encoder() {
        return encoder;
    }

    /**
     * {@code model}'s estimates of {@code prompts} from these embeddings and the prompts' features.
     *
     * @throws IllegalArgumentException when the head was trained on another encoder's embeddings
     */
    List<Estimate> estimates(RankerModel model, List<LabeledPrompt> prompts) {
        EncoderSpec trainedOn = model.metadata().encoderSpec();
        if (trainedOn != encoder) {
            throw new IllegalArgumentException("a head trained on " + trainedOn.id() + " embeddings cannot score " + encoder.id()
                    + " embeddings");
        }
        return model.estimates(of(prompts), LexicalTrainer.featureRows(prompts));
    }

    /** The embeddings of {@code prompts}, in order; each must be a prompt of the corpus. */
    float[][] of(List<LabeledPrompt> prompts) {
        float[][] embeddings = new float[prompts.size()][];
        for (int i = 0; i < prompts.size(); i++) {
            embeddings[i] = byPrompt.get(prompts.get(i));
            if (embeddings[i] == null) {
                throw new IllegalArgumentException("prompt " + i + " is not in the embedded corpus");
            }
        }
        return embeddings;
    }
}
