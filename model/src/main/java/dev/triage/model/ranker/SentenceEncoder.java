package dev.triage.model.ranker;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.triage.model.OnnxSessions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ranker's sentence encoder: one of the int8-quantized ONNX models an {@link EncoderSpec}
 * names (all-MiniLM-L6-v2 by default), or that graph with its layers tuned for answer length ({@link EncoderGraph}),
 * run by ONNX Runtime, with its WordPiece tokenizer run by DJL's HuggingFace tokenizers. The tokenizer and the
 * untuned graph are class-path resources of the spec's artifact; nothing is
 * downloaded, and DJL's network calls are switched off before the tokenizer loads ({@link DjlOffline}).
 *
 * <p>A text, after the spec's prefix, becomes {@code [CLS] word pieces [SEP]}, at most {@link #maxTokens()} tokens: a longer
 * text keeps its first two thirds of the window and its last third ({@link #TRUNCATION}), since a
 * prompt's instruction sits at its start or after pasted material at its end. Its
 * embedding is the spec's pooling of the last hidden states over those tokens, L2-normalized — the pooling
 * each model was trained with. Thread-safe: the tokenizer is
 * immutable once built, and ONNX Runtime sessions may run concurrently.
 *
 * <p>Each text is encoded in an ONNX Runtime call of its own, never padded into a batch with
 * others. The int8 model quantizes its activations on the fly with one scale per call
 * ({@code DynamicQuantizeLinear}), so texts encoded together change each other's embeddings (by up
 * to 0.03 per dimension of a unit vector, measured), which would make an estimate depend on the
 * requests that happened to arrive with it. Nor would a batch be faster: on two cores, 8 or 32
 * prompts of 128 tokens in one call cost 7.0 and 7.7 ms a prompt, one by one 7.5 ms (JMH, MiniLM).
 *
 * <pre>{@code
 * try (SentenceEncoder encoder = SentenceEncoder.open(EncoderSpec.DEFAULT, 256)) {
 *     float[][] embeddings = encoder.embed(List.of("Write a poem", "What is 2 + 2?"));
 * }
 * }</pre>
 */
public final class SentenceEncoder implements AutoCloseable {

    /** How a text longer than the window is cut, as named in metadata. */
    public static final String TRUNCATION = "head and tail: the first 2/3 of the word pieces that fit, then the last 1/3";

    /**
     * Characters of a text the tokenizer sees at most, per token kept, so that a pasted megabyte is
     * never tokenized in full. A word piece covers at most one whole word, and BERT's tokenizer turns a
     * word of more than 100 characters into one {@code [UNK]}, so for prose the cut falls past the
     * truncation point; a head of whitespace or of words longer than 100 characters, which give fewer
     * tokens than this allows, is encoded from less of the text. Training encodes by the same rule, so
     * served and trained prompts are cut alike.
     */
    private static final int CHARACTERS_PER_TOKEN_BOUND = 101;

    private final EncoderSpec spec;
    private final HuggingFaceTokenizer tokenizer;
    private final OrtEnvironment environment;
    private final OrtSession session;
    private final int maxTokens;
    private final boolean tokenTypes;
    private final Set<String> outputs = Set.of("last_hidden_state");

    private SentenceEncoder(EncoderSpec spec, HuggingFaceTokenizer tokenizer, OrtEnvironment environment, OrtSession session,
            int maxTokens) {
        this.spec = spec;
        this.tokenizer = tokenizer;
        this.environment = environment;
        this.session = session;
        this.maxTokens = maxTokens;
        // Exported BERTs differ in whether they take the segment ids a single text leaves at zero.
        this.tokenTypes = session.getInputNames().contains("token_type_ids");
    }

    /**
     * Loads the encoder {@code spec} names with texts cut at {@code maxTokens} tokens ([CLS] and [SEP]
     * included), its ONNX Runtime session using every available core for one call.
     *
     * @throws IOException when a resource is missing (the spec's artifact is not on the class path) or unreadable
     * @throws OrtException when ONNX Runtime cannot load the model
     * @throws IllegalStateException when DJL's offline mode cannot be switched on
     */
    public static SentenceEncoder open(EncoderSpec spec, int maxTokens) throws IOException, OrtException {
        return open(spec, maxTokens, Runtime.getRuntime().availableProcessors());
    }

    /** As {@link #open(EncoderSpec, int)}, with ONNX Runtime's intra-op threads set (benchmarks compare them). */
    public static SentenceEncoder open(EncoderSpec spec, int maxTokens, int threads) throws IOException, OrtException {
        return open(EncoderGraph.of(spec), maxTokens, threads);
    }

    /** As {@link #open(EncoderSpec, int, int)}, running {@code graph} (its spec's own or a tuned one). */
    public static SentenceEncoder open(EncoderGraph graph, int maxTokens, int threads) throws IOException, OrtException {
        if (maxTokens < 2 || maxTokens > EncoderSpec.MAX_POSITIONS) {
            throw new IllegalArgumentException("maxTokens: " + maxTokens + " (expected: 2 to " + EncoderSpec.MAX_POSITIONS + ")");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        EncoderSpec spec = graph.spec();
        DjlOffline.enforce();
        HuggingFaceTokenizer tokenizer;
        try (InputStream json = resource(spec, spec.tokenizerResource())) {
            tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of(
                    "addSpecialTokens", "true",
                    "truncation", "false",
                    "padding", "false",
                    "maxLength", Integer.toString(maxTokens)));
        }
        byte[] model = graph.onnx();
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(threads);
            options.setInterOpNumThreads(1);
            // Between calls the pool's threads would spin waiting for work, taking the cores the network
            // threads and the backend beside Triage need.
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            return new SentenceEncoder(spec, tokenizer, environment, environment.createSession(model, options), maxTokens);
        } catch (OrtException | RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    public EncoderSpec spec() {
        return spec;
    }

    public int maxTokens() {
        return maxTokens;
    }

    /** How many tokens the encoder reads of {@code text}: [CLS] and [SEP] included, after truncation. */
    public int tokenCount(String text) {
        return ids(text).length;
    }

    /** The word-piece ids the encoder reads: [CLS], the prefixed text's head and tail within the window, [SEP]. */
    public long[] ids(String text) {
        long[] all = tokenizer.encode(spec.prefix() + bounded(text)).getIds();
        if (all.length <= maxTokens) {
            return all;
        }
        int pieces = maxTokens - 2;
        int head = (pieces * 2 + 2) / 3;
        int tail = pieces - head;
        long[] ids = new long[maxTokens];
        System.arraycopy(all, 0, ids, 0, head + 1);
        System.arraycopy(all, all.length - 1 - tail, ids, head + 1, tail + 1);
        return ids;
    }

    /** The embeddings of {@code texts}, one row of {@link EncoderSpec#dimensions()} per text, each text encoded alone. */
    public float[][] embed(List<String> texts) {
        float[][] embeddings = new float[texts.size()][];
        for (int i = 0; i < embeddings.length; i++) {
            embeddings[i] = embed(texts.get(i));
        }
        return embeddings;
    }

    /** The embedding of {@code text}: {@link EncoderSpec#dimensions()} values, unit length. */
    public float[] embed(String text) {
        long[] ids = ids(text);
        long[] mask = new long[ids.length];
        Arrays.fill(mask, 1);
        long[] shape = {1, ids.length};
        try (OnnxTensor idTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape);
                OnnxTensor maskTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape);
                OnnxTensor typeTensor = tokenTypes ? OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[ids.length]), shape)
                        : null) {
            Map<String, OnnxTensor> inputs = tokenTypes
                    ? Map.of("input_ids", idTensor, "attention_mask", maskTensor, "token_type_ids", typeTensor)
                    : Map.of("input_ids", idTensor, "attention_mask", maskTensor);
            try (OrtSession.Result result = session.run(inputs, outputs)) {
                return pooled(((OnnxTensor) result.get(0)).getFloatBuffer(), ids.length);
            }
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed to encode a text of " + ids.length + " tokens", e);
        }
    }

    /**
     * The spec's pooling of the token states, L2-normalized: their mean ([CLS] and [SEP] included, as
     * sentence-transformers pools) or the [CLS] state alone.
     */
    private float[] pooled(FloatBuffer states, int tokens) {
        int dimensions = spec.dimensions();
        int pooledTokens = spec.pooling() == EncoderSpec.Pooling.CLS ? 1 : tokens;
        float[] embedding = new float[dimensions];
        for (int t = 0; t < pooledTokens; t++) {
            int offset = t * dimensions;
            for (int d = 0; d < dimensions; d++) {
                embedding[d] += states.get(offset + d);
            }
        }
        double norm = 0;
        for (int d = 0; d < dimensions; d++) {
            embedding[d] /= pooledTokens;
            norm += (double) embedding[d] * embedding[d];
        }
        float scale = (float) (1 / Math.max(Math.sqrt(norm), 1e-12));
        for (int d = 0; d < dimensions; d++) {
            embedding[d] *= scale;
        }
        return embedding;
    }

    /** The text's head and tail, each as long as its word pieces could reach, joined by a line break. */
    private String bounded(String text) {
        int limit = maxTokens * CHARACTERS_PER_TOKEN_BOUND;
        if (text.length() <= 2 * limit) {
            return text;
        }
        // Never leave half a surrogate pair: the tokenizer reads the text as UTF-8.
        int headEnd = Character.isHighSurrogate(text.charAt(limit - 1)) ? limit - 1 : limit;
        int tailStart = text.length() - limit;
        tailStart += Character.isLowSurrogate(text.charAt(tailStart)) ? 1 : 0;
        return text.substring(0, headEnd) + "\n" + text.substring(tailStart);
    }

    private static InputStream resource(EncoderSpec spec, String name) throws IOException {
        InputStream in = SentenceEncoder.class.getResourceAsStream(name);
        if (in == null) {
            throw new IOException("no class-path resource " + name + " (expected from " + spec.artifact() + ")");
        }
        return in;
    }

    @Override
    public void close() {
        try {
            OnnxSessions.close(session);
        } finally {
            tokenizer.close();
        }
    }
}
