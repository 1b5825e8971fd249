package dev.triage.model.training;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import dev.triage.model.ranker.EncoderSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A BERT sentence encoder written in DJL's array operations, so that PyTorch can differentiate it: the embedding layer
 * frozen, the transformer layers trainable, the output pooled as the encoder's spec pools it and L2-normalized. Its
 * weights are an {@link Int8BertWeights}' dequantized ones, so that untuned it computes what the int8 graph serves, but
 * for the int8 graph's rounding of activations. DJL's own {@code BertBlock} cannot hold them: it normalizes with a
 * batch norm where BERT uses a layer norm.
 */
final class TunableBert implements AutoCloseable {

    /** Every encoder {@link EncoderSpec} names has 12 attention heads over its 384 dimensions. */
    private static final int ATTENTION_HEADS = 12;
    /** BERT's layer-norm epsilon, as the graphs hold it. */
    private static final float NORM_EPSILON = 1e-12f;
    /** Added to the attention logits of padding: their softmax weight underflows to 0. */
    private static final float PADDING_LOGIT = -10_000f;
    /** Texts run through the layers together, sorted by length, so that few are padded much. */
    private static final int CHUNK = 8;

    private final EncoderSpec spec;
    private final NDManager manager;
    private final NDArray words;
    private final NDArray positions;
    private final NDArray tokenType;
    private final NDArray normGain;
    private final NDArray normBias;
    private final List<NDArray[]> layers = new ArrayList<>();
    private final int dimensions;

    TunableBert(EncoderSpec spec, Int8BertWeights weights) throws IOException {
        this.spec = spec;
        this.manager = NDManager.newBaseManager();
        this.dimensions = spec.dimensions();
        List<Int8BertWeights.Tensor> embeddings = weights.embeddings();
        this.words = array(embeddings.get(0));
        this.positions = array(embeddings.get(1));
        this.tokenType = array(embeddings.get(2)).get(0);
        this.normGain = array(embeddings.get(3));
        this.normBias = array(embeddings.get(4));
        for (int layer = 0; layer < weights.layers(); layer++) {
            layers.add(weights.layer(layer).stream().map(this::array).toArray(NDArray[]::new));
        }
    }

    private NDArray array(Int8BertWeights.Tensor tensor) {
        return manager.create(tensor.values(), new Shape(tensor.shape())).duplicate();
    }

    /** The manager the weights live in: a step's arrays go in a sub-manager of it. */
    NDManager manager() {
        return manager;
    }

    /** Every trainable array: each layer's {@link Int8BertWeights#TENSORS_PER_LAYER}, layer by layer. */
    List<NDArray> parameters() {
        return layers.stream().flatMap(Arrays::stream).toList();
    }

    /** The layers' weights as they now are, in {@link Int8BertWeights#layer}'s order, to be quantized into the graph. */
    List<List<Int8BertWeights.Tensor>> layerTensors() {
        return layers.stream().map(layer -> Arrays.stream(layer)
                .map(array -> new Int8BertWeights.Tensor(array.getShape().getShape(), array.toFloatArray())).toList()).toList();
    }

    /** The unit-length embeddings of texts given by their word-piece ids ([CLS] and [SEP] included), one row each. */
    NDArray embed(NDManager step, List<long[]> ids) {
        Integer[] order = new Integer[ids.size()];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingInt(i -> ids.get(i).length));
        NDList chunks = new NDList();
        for (int start = 0; start < order.length; start += CHUNK) {
            List<long[]> chunk = new ArrayList<>();
            for (int i = start; i < Math.min(order.length, start + CHUNK); i++) {
                chunk.add(ids.get(order[i]));
            }
            chunks.add(embedPadded(step, chunk));
        }
        long[] inverse = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            inverse[order[i]] = i;
        }
        return NDArrays.concat(chunks, 0).get(new NDIndex("{}", step.create(inverse)));
    }

    private NDArray embedPadded(NDManager step, List<long[]> ids) {
        int batch = ids.size();
        int length = ids.stream().mapToInt(row -> row.length).max().orElseThrow();
        long[] padded = new long[batch * length];
        float[] mask = new float[batch * length];
        for (int b = 0; b < batch; b++) {
            System.arraycopy(ids.get(b), 0, padded, b * length, ids.get(b).length);
            Arrays.fill(mask, b * length, b * length + ids.get(b).length, 1);
        }
        // An operation's result belongs to its first operand's manager: rows taken from the tables are moved to the step's,
        // or every step's activations would stay with the weights until the end.
        NDArray tokens = words.get(new NDIndex("{}", step.create(padded)));
        NDArray position = positions.get("0:" + length);
        tokens.attach(step);
        position.attach(step);
        NDArray hidden = norm(tokens.reshape(batch, length, dimensions).add(position).add(tokenType), normGain, normBias);
        NDArray maskArray = step.create(mask, new Shape(batch, length));
        NDArray attentionBias = maskArray.sub(1).mul(-PADDING_LOGIT).reshape(batch, 1, 1, length);
        for (NDArray[] layer : layers) {
            hidden = layer(hidden, layer, attentionBias, batch, length);
        }
        NDArray pooled = spec.pooling() == EncoderSpec.Pooling.CLS
                ? hidden.get(":, 0, :")
                : hidden.mul(maskArray.expandDims(-1)).sum(new int[] {1}).div(maskArray.sum(new int[] {1}, true));
        return pooled.div(pooled.square().sum(new int[] {1}, true).sqrt().maximum(1e-12f));
    }

    /** One transformer layer: self-attention, then the feed-forward network, each added to its input and normalized. */
    private NDArray layer(NDArray input, NDArray[] w, NDArray attentionBias, int batch, int length) {
        int headDimensions = dimensions / ATTENTION_HEADS;
        NDArray query = heads(input.matMul(w[0]).add(w[1]), batch, length);
        NDArray key = heads(input.matMul(w[2]).add(w[3]), batch, length);
        NDArray value = heads(input.matMul(w[4]).add(w[5]), batch, length);
        NDArray attention = query.matMul(key.transpose(0, 1, 3, 2)).div((float) Math.sqrt(headDimensions)).add(attentionBias)
                .softmax(-1);
        NDArray context = attention.matMul(value).transpose(0, 2, 1, 3).reshape(batch, length, dimensions);
        NDArray attended = norm(context.matMul(w[6]).add(w[7]).add(input), w[8], w[9]);
        NDArray fed = Activation.gelu(attended.matMul(w[10]).add(w[11])).matMul(w[12]).add(w[13]);
        return norm(fed.add(attended), w[14], w[15]);
    }

    private NDArray heads(NDArray x, int batch, int length) {
        return x.reshape(batch, length, ATTENTION_HEADS, dimensions / ATTENTION_HEADS).transpose(0, 2, 1, 3);
    }

    private static NDArray norm(NDArray x, NDArray gain, NDArray bias) {
        NDArray centered = x.sub(x.mean(new int[] {-1}, true));
        NDArray variance = centered.square().mean(new int[] {-1}, true);
        return centered.div(variance.add(NORM_EPSILON).sqrt()).mul(gain).add(bias);
    }

    @Override
    public void close() {
        manager.close();
    }
}
