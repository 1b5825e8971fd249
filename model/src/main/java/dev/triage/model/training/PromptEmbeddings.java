package dev.triage.model.training;

import dev.triage.model.data.LabeledPrompt;
import dev.triage.model.data.PromptCorpus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** The sentence embedding of every prompt of a corpus, read from the {@link EmbeddingCache} or encoded once. */
final class PromptEmbeddings {

    private final Map<LabeledPrompt, float[]> byPrompt;

    private PromptEmbeddings(Map<LabeledPrompt, float[]> byPrompt) {
        this.byPrompt = byPrompt;
    }

    static PromptEmbeddings of(PromptCorpus corpus, int maxTokens, Path cacheDirectory) throws IOException {
        List<LabeledPrompt> prompts = corpus.prompts();
        float[][] embeddings = EmbeddingCache.embed(prompts.stream().map(LabeledPrompt::prompt).toList(), maxTokens, cacheDirectory);
        Map<LabeledPrompt, float[]> byPrompt = new IdentityHashMap<>();
        for (int i = 0; i < prompts.size(); i++) {
            byPrompt.put(prompts.get(i), embeddings[i]);
        }
        return new PromptEmbeddings(byPrompt);
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
