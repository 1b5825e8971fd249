package dev.triage.model.classifier;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * How the estimators that load a model (the classifier, the lexical estimator, the ranker) find and read its files: an
 * ONNX file with its metadata JSON beside it ({@code x.onnx} and {@code x.json}), from a path or
 * from this module's class-path resources. Every failure is a {@link ModelLoadException} naming the
 * estimator, the location and the reason.
 */
public final class ModelFiles {

    /** Builds a model from its ONNX bytes and metadata JSON; {@code location} names it in errors. */
    @FunctionalInterface
    public interface ModelReader<T> {
        T read(String location, byte[] onnxModel, byte[] metadataJson);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private ModelFiles() {}

    /**
     * A model's metadata JSON read as {@code type}, never null.
     *
     * @throws ModelLoadException when it is not JSON, not what {@code type} holds (a record's own checks included), or
     *     {@code null}
     */
    public static <T> T readMetadata(String estimator, String location, byte[] json, Class<T> type) {
        T metadata;
        try {
            metadata = JSON.readValue(json, type);
        } catch (IOException | IllegalArgumentException e) {
            throw new ModelLoadException(estimator, location, "metadata is not valid JSON: " + e.getMessage(), e);
        }
        if (metadata == null) {
            throw new ModelLoadException(estimator, location, "metadata is null (expected: a JSON object)", null);
        }
        return metadata;
    }

    /** The model at {@code onnxFile} with its metadata beside it. */
    public static <T> T loadFile(String estimator, Path onnxFile, ModelReader<T> reader) {
        String location = onnxFile.toString();
        return reader.read(location, readFile(estimator, location, onnxFile),
                readFile(estimator, location, metadataPath(onnxFile)));
    }

    /** The model in the class-path resource {@code onnxResource} with its metadata beside it. */
    public static <T> T loadResource(String estimator, String onnxResource, ModelReader<T> reader) {
        String location = "classpath:" + onnxResource;
        return reader.read(location, readResource(estimator, location, onnxResource),
                readResource(estimator, location, metadataResource(onnxResource)));
    }

    /** The metadata file of a model file: {@code x.onnx} → {@code x.json}. */
    public static Path metadataPath(Path onnxFile) {
        String name = onnxFile.getFileName().toString();
        String stem = name.endsWith(".onnx") ? name.substring(0, name.length() - ".onnx".length()) : name;
        return onnxFile.resolveSibling(stem + ".json");
    }

    /** The metadata resource of a model resource: {@code /models/x.onnx} → {@code /models/x.json}. */
    public static String metadataResource(String onnxResource) {
        return onnxResource.replaceFirst("\\.onnx$", ".json");
    }

    public static byte[] readFile(String estimator, String location, Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ModelLoadException(estimator, location, "no such file: " + file, e);
        } catch (IOException e) {
            throw new ModelLoadException(estimator, location, "cannot read " + file + ": " + e, e);
        }
    }

    public static byte[] readResource(String estimator, String location, String resource) {
        try (InputStream in = ModelFiles.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new ModelLoadException(estimator, location, "no class-path resource " + resource, null);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new ModelLoadException(estimator, location, "cannot read class-path resource " + resource + ": " + e, e);
        }
    }
}
