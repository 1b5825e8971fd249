package dev.triage.proxy.learning;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The first 64 bits of a text's SHA-256: how Triage names what it must tell apart but never keep (a
 * prompt, an API key). Cryptographic, so that nobody can craft a text that takes another's name.
 */
public final class Sha256Prefix {

    /** One digest per thread: looking one up by name costs a third of a short text's hash. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(Sha256Prefix::sha256);

    private Sha256Prefix() {}

    /** The first 8 bytes of the SHA-256 of the text's UTF-8, big-endian. */
    public static long of(String text) {
        byte[] digest = SHA_256.get().digest(text.getBytes(StandardCharsets.UTF_8));
        long bits = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            bits = (bits << 8) | (digest[i] & 0xFF);
        }
        return bits;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
