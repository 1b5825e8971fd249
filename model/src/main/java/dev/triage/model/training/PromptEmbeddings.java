package dev.triage.model.training;

import dev.triage.model.Estimate;
import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import dev.triage.model.data.PromptSplit;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.RankerMetadata;
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

    private final EncoderGraph encoder;
    private final Map<LabeledPrompt, float[]> byPrompt;

    private PromptEmbeddings(EncoderGraph encoder, Map<LabeledPrompt, float[]> byPrompt) {
        this.encoder = encoder;
        this.byPrompt = byPrompt;
    }

    /** The embeddings of every prompt a ranker may be trained or scored on: the corpus's and its instruction sets'. */
    static PromptEmbeddings of(PromptCorpus corpus, EncoderGraph encoder, int maxTokens, Path cacheDirectory) throws IOException {
        List<LabeledPrompt> prompts = new ArrayList<>(corpus.prompts());
        prompts.addAll(corpus.instructionSetPrompts(PromptSplit.TRAIN));
        return of(prompts, encoder, maxTokens, cacheDirectory);
    }

    static PromptEmbeddings of(List<LabeledPrompt> prompts, EncoderGraph encoder, int maxTokens, Path cacheDirectory)
            throws IOException {
        float[][] embeddings = EmbeddingCache.embed(prompts.stream().map(LabeledPrompt::prompt).toList(), encoder, maxTokens,
                cacheDirectory);
        Map<LabeledPrompt, float[]> byPrompt = new IdentityHashMap<>();
        for (int i = 0; i < prompts.size(); i++) {
            byPrompt.put(prompts.get(i), embeddings[i]);
        }
        return new PromptEmbeddings(encoder, byPrompt);
    }

    EncoderGraph encoder() {
        return encoder;
    }

    /**
     * {@code model}'s estimates of {@code prompts} from these embeddings and the prompts' features.
     *
     * @throws IllegalArgumentException when the head was trained on another encoder's embeddings, or names a tuned graph
     *     other than these embeddings' (a head retrained here on them, for evaluation, names none)
     */
    List<Estimate> estimates(RankerModel model, List<LabeledPrompt> prompts) {
        RankerMetadata.TunedEncoder tuned = model.metadata().tunedEncoder();
        if (model.metadata().encoderSpec() != encoder.spec() || tuned != null && !tuned.sha256().equals(encoder.sha256())) {
            throw new IllegalArgumentException("a head trained on " + model.metadata().encoderSpec().id()
                    + (tuned == null ? "" : "-tuned-" + tuned.sha256().substring(0, 12)) + " embeddings cannot score "
                    + encoder.id() + " embeddings");
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
