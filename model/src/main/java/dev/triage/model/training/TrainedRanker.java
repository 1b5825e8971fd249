package dev.triage.model.training;

import dev.triage.model.classifier.ClassifierMetadata.SplitFigures;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.ranker.EncoderGraph;
import dev.triage.model.ranker.RankerEstimator;
import dev.triage.model.ranker.RankerMetadata;
import dev.triage.model.ranker.RankerModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A trained ranking head in its shipped form: the ONNX head (with any trees stacked on it), its metadata (calibration
 * included) and, where its encoder was tuned with it, the tuned encoder's graph.
 */
public final class TrainedRanker {

    private final byte[] onnxModel;
    private final RankerMetadata metadata;
    private final byte[] tunedEncoder;

    TrainedRanker(byte[] onnxModel, RankerMetadata metadata) {
        this(onnxModel, metadata, null);
    }

    private TrainedRanker(byte[] onnxModel, RankerMetadata metadata, byte[] tunedEncoder) {
        this.onnxModel = onnxModel.clone();
        this.metadata = metadata;
        this.tunedEncoder = tunedEncoder;
    }

    /** This head with the tuned encoder graph it was trained on, to be written beside it. */
    TrainedRanker withTunedEncoder(EncoderGraph graph, RankerMetadata.TunedEncoder tuned) {
        if (!graph.tuned() || !graph.sha256().equals(tuned.sha256())) {
            throw new IllegalArgumentException("the graph is not the tuned encoder " + tuned.file() + " names");
        }
        return new TrainedRanker(onnxModel, metadata.withTunedEncoder(tuned), graph.onnx());
    }

    public RankerMetadata metadata() {
        return metadata;
    }

    public TrainedRanker withEvaluation(List<SplitFigures> figures) {
        return new TrainedRanker(onnxModel, metadata.withEvaluation(figures), tunedEncoder);
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
        return RankerEstimator.fromBytes(location, onnxModel, metadataJson(), file -> tunedEncoder);
    }

    /** Writes {@code onnxFile}, its metadata beside it ({@link ModelFiles#metadataPath}) and any tuned encoder's graph. */
    public void writeTo(Path onnxFile) throws IOException {
        ShippedModel.write(onnxFile, onnxModel, metadataJson());
        if (tunedEncoder != null) {
            Files.write(onnxFile.resolveSibling(metadata.tunedEncoder().file()), tunedEncoder);
        }
    }
}
