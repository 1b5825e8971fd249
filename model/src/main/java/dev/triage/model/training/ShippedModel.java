package dev.triage.model.training;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.classifier.ModelFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** A trained model's shipped form on disk: the ONNX file, and its metadata JSON beside it. */
final class ShippedModel {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ShippedModel() {}

    /** The metadata as the JSON file holds it. */
    static byte[] json(Object metadata) {
        try {
            return JSON.writeValueAsBytes(metadata);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code onnxFile} and its metadata beside it ({@link ModelFiles#metadataPath}). */
    static void write(Path onnxFile, byte[] onnxModel, byte[] metadataJson) throws IOException {
        Path parent = onnxFile.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(onnxFile, onnxModel);
        Files.write(ModelFiles.metadataPath(onnxFile), metadataJson);
    }

    /** Prints what a training command wrote and the figures it recorded in the metadata. */
    static void printWritten(Path onnxFile, List<SplitFigures> evaluation) throws IOException {
        Path metadata = ModelFiles.metadataPath(onnxFile);
        System.out.printf(Locale.ROOT, "wrote %s (%,d bytes) and %s (%,d bytes)%n", onnxFile, Files.size(onnxFile), metadata,
                Files.size(metadata));
        for (SplitFigures figures : evaluation) {
            System.out.println(figures.split() + " / " + figures.source() + ": " + figures.figures());
        }
    }
}
