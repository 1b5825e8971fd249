package dev.triage.model.training;

import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.model.classifier.ClassifierMetadata;
import dev.triage.model.classifier.ModelFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A trained length classifier in its shipped form: the ONNX model and its metadata. */
public final class TrainedClassifier {

    private final byte[] onnxModel;
    private final ClassifierMetadata metadata;

    TrainedClassifier(byte[] onnxModel, ClassifierMetadata metadata) {
        this.onnxModel = onnxModel.clone();
        this.metadata = metadata;
    }

    public ClassifierMetadata metadata() {
        return metadata;
    }

    public TrainedClassifier withEvaluation(List<ClassifierMetadata.SplitFigures> figures) {
        return new TrainedClassifier(onnxModel, metadata.withEvaluation(figures));
    }

    public byte[] metadataJson() {
        return ShippedModel.json(metadata);
    }

    /** The estimator that serves this model, loaded through the same path as a model file. */
    public ClassifierEstimator estimator(String location) {
        return ClassifierEstimator.fromBytes(location, onnxModel, metadataJson());
    }

    /** Writes {@code onnxFile} and its metadata beside it ({@link ModelFiles#metadataPath}). */
    public void writeTo(Path onnxFile) throws IOException {
        ShippedModel.write(onnxFile, onnxModel, metadataJson());
    }
}
