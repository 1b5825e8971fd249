package dev.triage.bench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.model.LengthClass;
import dev.triage.model.data.JsonLines;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads and writes workload files: JSON Lines, one {@link WorkloadEntry} per line, as specified in
 * {@code docs/workload-format.md}. Reading is strict: a missing or mistyped field, or a field the
 * format does not define, or an audio file that is not there, stops with the file, the line and what
 * was expected. Audio paths are read relative to the workload file's directory and written relative
 * to it, so a workload and its audio can move together.
 *
 * <pre>{@code
 * List<WorkloadEntry> entries = WorkloadFile.read(Path.of("workload.jsonl"));
 * }</pre>
 */
public final class WorkloadFile {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("prompt", "answer_tokens", "class", "source", "audio");

    private WorkloadFile() {}

    public static List<WorkloadEntry> read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString(), null, "no workload file there");
        }
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(reader, file.toString(), file.toAbsolutePath().getParent());
        }
    }

    /** Reads a workload from a class path resource (one shipped in a jar); it has no directory, so no audio. */
    public static List<WorkloadEntry> readResource(String resource) throws IOException {
        InputStream in = WorkloadFile.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IOException("no resource " + resource);
        }
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return read(reader, resource, null);
        }
    }

    /** @param directory what audio paths are relative to; null where there is none */
    private static List<WorkloadEntry> read(BufferedReader reader, String name, Path directory) throws IOException {
        return JsonLines.read(reader, name, node -> parse(node, directory));
    }

    public static void write(Path file, List<WorkloadEntry> entries) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        try (BufferedWriter writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (WorkloadEntry entry : entries) {
                ObjectNode node = JSON.createObjectNode();
                node.put("prompt", entry.prompt());
                node.put("answer_tokens", entry.answerTokens());
                node.put("class", entry.jobClass());
                node.put("source", entry.source());
                entry.audio().ifPresent(audio -> node.put("audio", directory.relativize(audio.path().toAbsolutePath()).toString()));
                writer.write(JSON.writeValueAsString(node));
                writer.write('\n');
            }
        }
    }

    private static WorkloadEntry parse(JsonNode node, Path directory) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("unknown field " + name + " (expected: " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
            }
        }
        JsonNode prompt = node.path("prompt");
        if (!prompt.isTextual()) {
            throw new IllegalArgumentException("prompt: " + describe(prompt) + " (expected: a string)");
        }
        JsonNode tokens = node.path("answer_tokens");
        if (!tokens.canConvertToInt() || !tokens.isIntegralNumber() || tokens.asInt() < 0) {
            throw new IllegalArgumentException("answer_tokens: " + describe(tokens) + " (expected: an integer >= 0)");
        }
        String jobClass = optionalText(node, "class", LengthClass.of(tokens.asInt()).label());
        String source = optionalText(node, "source", "");
        Optional<AudioFile> audio = Optional.ofNullable(optionalText(node, "audio", null)).map(path -> audio(path, directory));
        return new WorkloadEntry(prompt.asText(), tokens.asInt(), jobClass, source, audio);
    }

    private static AudioFile audio(String path, Path directory) {
        if (directory == null) {
            throw new IllegalArgumentException("audio: \"" + path + "\" (expected: none in a workload without a directory)");
        }
        Path file = directory.resolve(path).normalize();
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("audio: \"" + path + "\" (expected: an audio file, relative to the workload's directory;"
                    + " there is none at " + file + ")");
        }
        try {
            return AudioFile.read(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("audio: \"" + path + "\" (expected: a readable file; " + e.getMessage() + ")", e);
        }
    }

    private static String optionalText(JsonNode node, String field, String fallback) {
        JsonNode value = node.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return fallback;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException(field + ": " + describe(value) + " (expected: a string)");
        }
        return value.asText();
    }

    private static String describe(JsonNode value) {
        return value.isMissingNode() ? "missing" : value.toString();
    }
}
