package dev.triage.model.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reads JSON Lines, the format of the shared data, the workloads and the traces: one JSON value per
 * line, blank lines skipped. A line that is not JSON, or that the caller's row reader refuses with an
 * {@link IllegalArgumentException}, fails the read with the file's name and the line's number.
 *
 * <pre>{@code
 * List<Clip> clips = JsonLines.read(manifest, line -> new Clip(line.path("path").asText()));
 * }</pre>
 */
public final class JsonLines {

    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonLines() {}

    /** Every line of {@code file}, as {@code row} reads it. */
    public static <T> List<T> read(Path file, Function<JsonNode, T> row) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(reader, file.toString(), row);
        }
    }

    /**
     * Every line of a log that a process appends to, as {@code row} reads it: a last line left without
     * its newline (the writer stopped in the middle of it) that is not JSON is left out, as a line the
     * writer never finished; anywhere else such a line fails the read as {@link #read(Path, Function)} does.
     */
    public static <T> List<T> readLog(Path file, Function<JsonNode, T> row) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(reader, file.toString(), row, !endsWithNewline(file));
        }
    }

    /** @param name what errors call the input (a file, a resource) */
    public static <T> List<T> read(BufferedReader reader, String name, Function<JsonNode, T> row) throws IOException {
        return read(reader, name, row, false);
    }

    private static <T> List<T> read(BufferedReader reader, String name, Function<JsonNode, T> row, boolean lastLineTorn)
            throws IOException {
        List<T> rows = new ArrayList<>();
        String line;
        String next = reader.readLine();
        int number = 0;
        while ((line = next) != null) {
            next = reader.readLine();
            number++;
            if (line.isBlank()) {
                continue;
            }
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                if (lastLineTorn && next == null) {
                    break;
                }
                throw new IOException(name + ":" + number + ": not a JSON line (" + e.getOriginalMessage() + ")", e);
            }
            try {
                rows.add(row.apply(node));
            } catch (IllegalArgumentException e) {
                throw new IOException(name + ":" + number + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size == 0) {
                return true;
            }
            ByteBuffer last = ByteBuffer.allocate(1);
            channel.read(last, size - 1);
            return last.get(0) == '\n';
        }
    }
}
