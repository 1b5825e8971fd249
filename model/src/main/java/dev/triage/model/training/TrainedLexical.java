package dev.triage.model.training;

import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.lexical.LexicalEstimator;
import dev.triage.model.lexical.LexicalMetadata;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A trained {@code lexical} model in its shipped form: the ONNX tree ensemble and its metadata (calibration included). */
public final class TrainedLexical {

    private final byte[] onnxModel;
    private final LexicalMetadata metadata;

    TrainedLexical(byte[] onnxModel, LexicalMetadata metadata) {
        this.onnxModel = onnxModel.clone();
        this.metadata = metadata;
    }

    public LexicalMetadata metadata() {
        return metadata;
    }

    public TrainedLexical withEvaluation(List<SplitFigures> figures) {
        return new TrainedLexical(onnxModel, metadata.withEvaluation(figures));
    }

    /** The estimator that serves this model, loaded through the same path as a model file. */
    public LexicalEstimator estimator(String location) {
        return LexicalEstimator.fromBytes(location, onnxModel, ShippedModel.json(metadata));
    }

    /** Writes {@code onnxFile} and its metadata beside it ({@link ModelFiles#metadataPath}). */
    public void writeTo(Path onnxFile) throws IOException {
        ShippedModel.write(onnxFile, onnxModel, ShippedModel.json(metadata));
    }
}
