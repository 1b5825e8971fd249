package dev.triage.model.training;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.classifier.ClassifierMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A trained length classifier in its shipped form: the ONNX model and its metadata. */
public final class TrainedClassifier {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final byte[] onnxModel;
    private final ClassifierMetadata metadata;

    TrainedClassifier(byte[] onnxModel, ClassifierMetadata metadata) {
        this.onnxModel = onnxModel.clone();
        this.metadata = metadata;
    }

    public byte[] onnxModel() {
        return onnxModel.clone();
    }

    public ClassifierMetadata metadata() {
        return metadata;
    }

    public TrainedClassifier withEvaluation(List<ClassifierMetadata.SplitFigures> figures) {
        return new TrainedClassifier(onnxModel, metadata.withEvaluation(figures));
    }

    public byte[] metadataJson() {
        try {
            return JSON.writeValueAsBytes(metadata);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The estimator that serves this model, loaded through the same path as a model file. */
    public ClassifierEstimator estimator(String location) {
        return ClassifierEstimator.fromBytes(location, onnxModel, metadataJson());
    }

    /** Writes {@code onnxFile} and its metadata beside it ({@link ModelFiles#metadataPath}). */
    public void writeTo(Path onnxFile) throws IOException {
        Path parent = onnxFile.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(onnxFile, onnxModel);
        Files.write(ModelFiles.metadataPath(onnxFile), metadataJson());
    }
}
