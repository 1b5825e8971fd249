package dev.triage.bench.workload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The audio file of a speech workload entry, with the SHA-256 of its bytes: the key by which the
 * replay backend recognises an upload as that entry, whatever its file name or the form around it.
 *
 * @param path where the file is
 * @param sha256 the file's SHA-256, lower-case hex
 */
public record AudioFile(Path path, String sha256) {

    public AudioFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(sha256, "sha256");
    }

    /** Reads the file once to fingerprint it. */
    public static AudioFile read(Path path) throws IOException {
        return new AudioFile(path, sha256(ByteBuffer.wrap(Files.readAllBytes(path))));
    }

    /** The SHA-256 of the bytes between {@code bytes}' position and limit, lower-case hex; the buffer is not moved. */
    public static String sha256(ByteBuffer bytes) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(bytes.duplicate());
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
