package dev.triage.model.ranker;

import ai.onnxruntime.OrtException;
import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ModelFiles;
import dev.triage.model.classifier.ModelLoadException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * The {@code ranker} estimator, after PARS: the prompt is embedded by the sentence
 * encoder the head was trained on ({@link SentenceEncoder}: MiniLM, or MiniLM with its layers tuned with the head,
 * in a graph beside it) and scored, with the request's length, lexical features and
 * conversation shape beside the embedding ({@link RequestFeatures}), by a small head trained on
 * pairs of prompts with a margin ranking loss ({@link RankerModel}); a monotone calibration fitted on held-out prompts turns
 * the score into expected answer tokens, so SJF, HRRN and the starvation timeout compare it with
 * any other estimator's tokens. Both steps run in ONNX Runtime.
 *
 * <p>It costs milliseconds, not microseconds ({@link #expensive()}): callers run it off the network
 * threads. A batch ({@link #estimateAll}) is scored prompt by prompt: the int8 encoder would
 * otherwise make each estimate depend on the prompts batched with it, and on a CPU a shared
 * encoder call is no faster ({@link SentenceEncoder}). So estimates are pure — a prompt gets the
 * same estimate alone or in any batch. Thread-safe.
 *
 * <pre>{@code
 * JobEstimator<Prompt> ranker = RankerEstimator.loadDefault();        // or load(Path.of("ranker.onnx"))
 * List<Estimate> estimates = ranker.estimateAll(prompts);
 * }</pre>
 */
public final class RankerEstimator implements JobEstimator<Prompt> {

    public static final String NAME = "ranker";

    /** The shipped head, a class-path resource of this module; its metadata is {@code ranker.json}. */
    public static final String DEFAULT_MODEL_RESOURCE = "/models/ranker.onnx";

    private final SentenceEncoder encoder;
    private final RankerModel model;

    private RankerEstimator(SentenceEncoder encoder, RankerModel model) {
        this.encoder = encoder;
        this.model = model;
    }

    /**
     * Loads the head at {@code onnxFile} and its metadata at the same path with {@code .json} in
     * place of {@code .onnx}, and the encoder it was trained with (a tuned encoder's graph from beside it).
     *
     * @throws ModelLoadException when either file is missing or unusable, or the encoder cannot run
     */
    public static RankerEstimator load(Path onnxFile) {
        String location = onnxFile.toString();
        return withEncoder(location, RankerModel.load(onnxFile),
                file -> ModelFiles.readFile(NAME, location, onnxFile.resolveSibling(file)));
    }

    /**
     * Loads the head shipped in this module's resources ({@value #DEFAULT_MODEL_RESOURCE}).
     *
     * @throws ModelLoadException when the resource is missing or unusable (a broken build)
     */
    public static RankerEstimator loadDefault() {
        String location = "classpath:" + DEFAULT_MODEL_RESOURCE;
        String directory = DEFAULT_MODEL_RESOURCE.substring(0, DEFAULT_MODEL_RESOURCE.lastIndexOf('/') + 1);
        return withEncoder(location, RankerModel.loadDefault(), file -> ModelFiles.readResource(NAME, location, directory + file));
    }

    /**
     * A ranker from a head's ONNX model and metadata JSON in memory, {@code besideHead} reading the files its metadata
     * names beside it (a tuned encoder's graph); {@code location} names it in errors.
     *
     * @throws ModelLoadException when either is unusable or the encoder cannot run
     */
    public static RankerEstimator fromBytes(String location, byte[] onnxModel, byte[] metadataJson,
            Function<String, byte[]> besideHead) {
        return withEncoder(location, RankerModel.fromBytes(location, onnxModel, metadataJson), besideHead);
    }

    private static RankerEstimator withEncoder(String location, RankerModel model, Function<String, byte[]> besideHead) {
        try {
            RankerMetadata metadata = model.metadata();
            return new RankerEstimator(SentenceEncoder.open(encoderGraph(metadata, besideHead), metadata.maxTokens(),
                    Runtime.getRuntime().availableProcessors()), model);
        } catch (IOException | OrtException | RuntimeException e) {
            model.close();
            throw new ModelLoadException(NAME, location, "the sentence encoder cannot run: " + e.getMessage(), e);
        }
    }

    /**
     * The graph the head was trained on: its encoder's own, or the tuned one its metadata names, read by {@code
     * besideHead} from beside the head's file.
     *
     * @throws IOException when the graph cannot be read, or is not the one the head was trained on
     */
    public static EncoderGraph encoderGraph(RankerMetadata metadata, Function<String, byte[]> besideHead) throws IOException {
        RankerMetadata.TunedEncoder tuned = metadata.tunedEncoder();
        if (tuned == null) {
            return EncoderGraph.of(metadata.encoderSpec());
        }
        EncoderGraph graph = new EncoderGraph(metadata.encoderSpec(), besideHead.apply(tuned.file()), true);
        if (!graph.sha256().equals(tuned.sha256())) {
            throw new IOException("the tuned encoder " + tuned.file() + " has SHA-256 " + graph.sha256() + " (expected: "
                    + tuned.sha256() + ", the graph this head was trained on)");
        }
        return graph;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Estimate estimate(Prompt prompt) {
        return model.estimates(new float[][] {encoder.embed(prompt.text())}, new float[][] {RequestFeatures.of(prompt)}).get(0);
    }

    /** Milliseconds per call: the encoder is a transformer of 6 to 12 layers. */
    @Override
    public boolean expensive() {
        return true;
    }

    public RankerMetadata metadata() {
        return model.metadata();
    }

    @Override
    public void close() {
        try {
            encoder.close();
        } finally {
            model.close();
        }
    }
}
