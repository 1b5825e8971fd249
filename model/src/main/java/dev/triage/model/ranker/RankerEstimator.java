package dev.triage.model.ranker;

import ai.onnxruntime.OrtException;
import dev.triage.features.Prompt;
import dev.triage.features.RequestFeatures;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.model.classifier.ModelLoadException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The {@code ranker} estimator, after PARS: the prompt is embedded by the frozen sentence
 * encoder the head was trained on ({@link SentenceEncoder}, MiniLM for the shipped head) and scored, with the request's length, lexical features and
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
     * place of {@code .onnx}, and the encoder it was trained with.
     *
     * @throws ModelLoadException when either file is missing or unusable, or the encoder cannot run
     */
    public static RankerEstimator load(Path onnxFile) {
        return withEncoder(onnxFile.toString(), RankerModel.load(onnxFile));
    }

    /**
     * Loads the head shipped in this module's resources ({@value #DEFAULT_MODEL_RESOURCE}).
     *
     * @throws ModelLoadException when the resource is missing or unusable (a broken build)
     */
    public static RankerEstimator loadDefault() {
        return withEncoder("classpath:" + DEFAULT_MODEL_RESOURCE, RankerModel.loadDefault());
    }

    /**
     * A ranker from a head's ONNX model and metadata JSON in memory; {@code location} names it in
     * errors.
     *
     * @throws ModelLoadException when either is unusable or the encoder cannot run
     */
    public static RankerEstimator fromBytes(String location, byte[] onnxModel, byte[] metadataJson) {
        return withEncoder(location, RankerModel.fromBytes(location, onnxModel, metadataJson));
    }

    private static RankerEstimator withEncoder(String location, RankerModel model) {
        try {
            return new RankerEstimator(SentenceEncoder.open(model.metadata().encoderSpec(), model.metadata().maxTokens()), model);
        } catch (IOException | OrtException | RuntimeException e) {
            model.close();
            throw new ModelLoadException(NAME, location, "the sentence encoder cannot run: " + e.getMessage(), e);
        }
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
