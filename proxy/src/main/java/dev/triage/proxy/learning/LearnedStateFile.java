package dev.triage.proxy.learning;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.triage.proxy.api.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The learners' statistics on disk, {@value #FILE_NAME} under the state directory: written whole to a
 * temporary file and moved over the old one, so a crash mid-write leaves the old state, never half a
 * file. A file of another format, or that does not parse, is not used.
 *
 * <p>Each learner is saved with what it learned for: the backend's URL and the estimator whose
 * tokens it calibrates. A learner whose backend or estimator has changed since starts from the
 * configured model. About 40 KB per learner once the calibration's window of answers is full, and up
 * to about 300 KB more once its repeat memory is; the ranking adaptation adds about 1.5 KB, and its
 * shadow evaluation's two windows about 20 KB.
 *
 * <p>Format 2 adds the ranking adaptation; a format 1 file is read as a state without one.
 */
final class LearnedStateFile {

    static final String FILE_NAME = "learned-state.json";
    static final String FORMAT = "triage-learned-state/2";
    /** The format before the ranking adaptation: read, never written. */
    static final String FORMAT_1 = "triage-learned-state/1";

    private final Path file;

    LearnedStateFile(Path stateDirectory) {
        this.file = stateDirectory.resolve(FILE_NAME);
    }

    Path path() {
        return file;
    }

    /**
     * A learner's saved statistics and what they were learned for.
     *
     * @param learnedFor the backend and estimator it learned about ({@link BackendLearner#learnedFor()})
     */
    record Entry(String learnedFor, BackendLearner.LearnedState state) {
        Entry {
            Objects.requireNonNull(learnedFor, "learnedFor");
        }
    }

    /**
     * The saved learners by key; empty when there is no file.
     *
     * @throws IOException when the file cannot be read, or holds something other than a learned state
     */
    Map<String, Entry> read() throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Map.of();
        }
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(bytes);
        } catch (JacksonException e) {
            throw new IOException("not JSON: " + e.getOriginalMessage(), e);
        }
        String format = root == null ? "" : root.path("format").asText();
        if (root == null || !root.isObject() || !FORMAT.equals(format) && !FORMAT_1.equals(format)) {
            throw new IOException("not a " + FORMAT + " file");
        }
        JsonNode learners = root.path("learners");
        if (!learners.isObject()) {
            throw new IOException("no learners");
        }
        Map<String, Entry> entries = new HashMap<>();
        for (var field : (Iterable<Map.Entry<String, JsonNode>>) learners::fields) {
            JsonNode learner = field.getValue();
            if (!learner.path("learnedFor").isTextual()) {
                throw new IOException("learner " + field.getKey() + " does not say what it learned for");
            }
            entries.put(field.getKey(), new Entry(learner.get("learnedFor").asText(),
                    new BackendLearner.LearnedState(numbers(learner, "serviceTime"), numbers(learner, "calibration"),
                            numbers(learner, "shadow"), learner.has("repeats") ? numbers(learner, "repeats") : new double[0],
                            FORMAT_1.equals(format) ? new double[0] : numbers(learner, "ranking"),
                            FORMAT_1.equals(format) ? new double[0] : numbers(learner, "rankingShadow"))));
        }
        return entries;
    }

    /** Replaces the file with these learners' state, atomically where the file system allows. */
    void write(Map<String, Entry> entries) throws IOException {
        ObjectNode root = Json.MAPPER.createObjectNode().put("format", FORMAT);
        ObjectNode learners = root.putObject("learners");
        entries.forEach((key, entry) -> {
            ObjectNode learner = learners.putObject(key).put("learnedFor", entry.learnedFor());
            array(learner.putArray("serviceTime"), entry.state().serviceTime());
            array(learner.putArray("calibration"), entry.state().calibration());
            array(learner.putArray("shadow"), entry.state().shadow());
            array(learner.putArray("repeats"), entry.state().repeats());
            array(learner.putArray("ranking"), entry.state().ranking());
            array(learner.putArray("rankingShadow"), entry.state().rankingShadow());
        });
        Files.createDirectories(file.getParent());
        Path temporary = Files.createTempFile(file.getParent(), FILE_NAME, ".tmp");
        try {
            // On disk before the rename: after a power cut, a file system may otherwise keep the rename and
            // not the bytes, and the state would be an empty file.
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(Json.MAPPER.writeValueAsBytes(root));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static void array(ArrayNode array, double[] values) {
        for (double value : values) {
            array.add(value);
        }
    }

    private static double[] numbers(JsonNode learner, String name) throws IOException {
        JsonNode array = learner.path(name);
        if (!array.isArray()) {
            throw new IOException(name + " is not an array");
        }
        double[] values = new double[array.size()];
        for (int i = 0; i < values.length; i++) {
            JsonNode value = array.get(i);
            if (value.isNumber()) {
                values[i] = value.doubleValue();
            } else if (value.isTextual() && value.asText().equals("NaN")) {
                values[i] = Double.NaN; // a running error before the first answer
            } else {
                throw new IOException(name + "[" + i + "] is not a number");
            }
        }
        return values;
    }
}
