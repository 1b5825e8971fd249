package dev.triage.model.training;

import ai.onnxruntime.OrtException;
import dev.triage.model.cli.Progress;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.EncoderSpec;
import dev.triage.model.ranker.SentenceEncoder;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Sentence embeddings of training and evaluation prompts, kept in a file so that training again,
 * or evaluating, does not encode the corpus again (some minutes on two cores). One file per encoder
 * and truncation, keyed by the SHA-256 of each text; texts not in it are encoded and added.
 *
 * <pre>{@code
 * float[][] embeddings = EmbeddingCache.embed(texts, EncoderGraph.of(EncoderSpec.MINILM), 256, Path.of("model/target/ranker-embeddings"));
 * }</pre>
 */
final class EmbeddingCache {

    /** Where scripts keep the cache, relative to the repository root (a build output: {@code mvn clean} drops it). */
    static final Path DEFAULT_DIRECTORY = Path.of("model/target/ranker-embeddings");

    private static final int MAGIC = 0x54524531;

    private EmbeddingCache() {}

    /** The embedding of each text, in order, from the cache under {@code directory} or encoded now. */
    static float[][] embed(List<String> texts, EncoderGraph encoder, int maxTokens, Path directory) throws IOException {
        Path file = directory.resolve(fileName(encoder, maxTokens));
        Map<String, float[]> cached = read(file, encoder.spec().dimensions());
        List<String> missing = new ArrayList<>(new LinkedHashSet<>(texts.stream().filter(t -> !cached.containsKey(key(t))).toList()));
        if (!missing.isEmpty()) {
            encode(missing, encoder, maxTokens, cached);
            write(file, cached, encoder.spec().dimensions());
        }
        float[][] embeddings = new float[texts.size()][];
        for (int i = 0; i < texts.size(); i++) {
            embeddings[i] = cached.get(key(texts.get(i)));
        }
        return embeddings;
    }

    private static void encode(List<String> texts, EncoderGraph graph, int maxTokens, Map<String, float[]> into) throws IOException {
        // About 8 ms a prompt on 2 cores with MiniLM (6-9 ms at 128 tokens, fewer for short prompts), twice that with the
        // 12-layer encoders; once per cache file.
        Progress progress = Progress.start(String.format(Locale.ROOT, "encoding prompts with %s (max %d tokens, cached for next time)",
                graph.id(), maxTokens), texts.size(), Duration.ofMillis(8L * texts.size()));
        try (SentenceEncoder encoder = SentenceEncoder.open(graph, maxTokens, Runtime.getRuntime().availableProcessors())) {
            for (String text : texts) {
                into.put(key(text), encoder.embed(text));
                progress.step();
            }
        } catch (OrtException e) {
            throw new IOException("the sentence encoder cannot run: " + e.getMessage(), e);
        }
        progress.done();
    }

    private static Map<String, float[]> read(Path file, int expectedDimensions) throws IOException {
        Map<String, float[]> cached = new HashMap<>();
        if (!Files.exists(file)) {
            return cached;
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            int magic = in.readInt();
            int dimensions = in.readInt();
            if (magic != MAGIC || dimensions != expectedDimensions) {
                throw new IOException(file + ": not an embedding cache of " + expectedDimensions
                        + " dimensions (delete it to encode again)");
            }
            int count = in.readInt();
            byte[] hash = new byte[32];
            for (int i = 0; i < count; i++) {
                in.readFully(hash);
                float[] embedding = new float[dimensions];
                for (int d = 0; d < dimensions; d++) {
                    embedding[d] = in.readFloat();
                }
                cached.put(HexFormat.of().formatHex(hash), embedding);
            }
        }
        return cached;
    }

    private static void write(Path file, Map<String, float[]> cached, int dimensions) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(partial)))) {
            out.writeInt(MAGIC);
            out.writeInt(dimensions);
            out.writeInt(cached.size());
            for (Map.Entry<String, float[]> entry : cached.entrySet()) {
                out.write(HexFormat.of().parseHex(entry.getKey()));
                for (float value : entry.getValue()) {
                    out.writeFloat(value);
                }
            }
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * One file per encoder graph and truncation: the encoder's name, how it pools, what it prefixes and how
     * it cuts are hashed into the file name, so that changing any of them encodes again, and a tuned graph's digest
     * leads it ({@link EncoderGraph#id()}). Every text is encoded alone, as serving encodes it.
     */
    static String fileName(EncoderGraph graph, int maxTokens) {
        EncoderSpec encoder = graph.spec();
        String encoding = encoder.displayName() + "|" + encoder.pooling().description + "|" + encoder.prefix() + "|" + SentenceEncoder.TRUNCATION;
        return graph.id() + "-" + key(encoding).substring(0, 12) + "-" + maxTokens + ".bin";
    }

    private static String key(String text) {
        return EncoderGraph.sha256(text);
    }
}
