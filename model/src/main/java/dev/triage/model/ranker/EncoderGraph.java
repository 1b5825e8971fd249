package dev.triage.model.ranker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The ONNX graph a {@link SentenceEncoder} runs: its spec's own, from the spec's artifact, or one
 * whose transformer layers {@code scripts/train --tune-encoder} tuned for answer length (the spec's
 * graph with other weights; the tokenizer and pooling stay the spec's).
 */
public final class EncoderGraph {

    private final EncoderSpec spec;
    private final byte[] onnx;
    private final boolean tuned;
    private final String sha256;

    /**
     * @param spec the encoder it is a graph of
     * @param onnx the serialized model
     * @param tuned whether its weights are not the artifact's
     */
    public EncoderGraph(EncoderSpec spec, byte[] onnx, boolean tuned) {
        this.spec = spec;
        this.onnx = onnx;
        this.tuned = tuned;
        this.sha256 = sha256(onnx);
    }

    public EncoderSpec spec() {
        return spec;
    }

    /** The serialized model, not copied: callers only read it. */
    public byte[] onnx() {
        return onnx;
    }

    public boolean tuned() {
        return tuned;
    }

    /** The spec's own graph, read from its artifact on the class path. */
    public static EncoderGraph of(EncoderSpec spec) throws IOException {
        try (InputStream in = SentenceEncoder.class.getResourceAsStream(spec.modelResource())) {
            if (in == null) {
                throw new IOException("no class-path resource " + spec.modelResource() + " (expected from " + spec.artifact() + ")");
            }
            return new EncoderGraph(spec, in.readAllBytes(), false);
        }
    }

    /** The SHA-256 of {@link #onnx()}, in hex: what a head's metadata records of a tuned graph. */
    public String sha256() {
        return sha256;
    }

    /** How cache files and logs name it: the spec's id, and for a tuned graph the start of its digest. */
    public String id() {
        return tuned ? spec.id() + "-tuned-" + sha256.substring(0, 12) : spec.id();
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The SHA-256 of {@code text}'s UTF-8 bytes, in hex. */
    public static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }
}
