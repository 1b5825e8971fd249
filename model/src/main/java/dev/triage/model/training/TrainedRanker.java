package dev.triage.model.training;

import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.ranker.RankerModel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A trained ranking head in its shipped form: the ONNX head (with any trees stacked on it) and its metadata (calibration included). */
public final class TrainedRanker {

    private final byte[] onnxModel;
    private final RankerMetadata metadata;

    TrainedRanker(byte[] onnxModel, RankerMetadata metadata) {
        this.onnxModel = onnxModel.clone();
        this.metadata = metadata;
    }

    public byte[] onnxModel() {
        return onnxModel.clone();
    }

    public RankerMetadata metadata() {
        return metadata;
    }

    public TrainedRanker withEvaluation(List<SplitFigures> figures) {
        return new TrainedRanker(onnxModel, metadata.withEvaluation(figures));
    }

    public byte[] metadataJson() {
        return ShippedModel.json(metadata);
    }

    /** The head alone, loaded through the same path as a model file, for scoring cached embeddings. */
    public RankerModel model(String location) {
        return RankerModel.fromBytes(location, onnxModel, metadataJson());
    }

    /** The estimator that serves this head, encoder included. */
    public RankerEstimator estimator(String location) {
        return RankerEstimator.fromBytes(location, onnxModel, metadataJson());
    }

    /** Writes {@code onnxFile} and its metadata beside it ({@link ModelFiles#metadataPath}). */
    public void writeTo(Path onnxFile) throws IOException {
        ShippedModel.write(onnxFile, onnxModel, metadataJson());
    }
}
