package dev.triage.model.training;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The weights of a BERT graph quantized as the langchain4j embedding artifacts ship theirs (ONNX Runtime's dynamic
 * quantization): each dense layer's weight a {@code MatMulInteger} operand of int8 values with one scale per output
 * column and zero points of 0, the embedding tables uint8 with one scale and zero point each, biases and layer norms
 * float. Read as floats for tuning, and written back into a copy of the graph, quantized the same way, so that the
 * tuned encoder is the same graph with other numbers in it.
 */
final class Int8BertWeights {

    /** One tensor of a transformer layer: an initializer of the float graph, named with the layer's index for {@code %d}. */
    private record LayerTensor(String name, boolean dense) {}

    /**
     * A layer's tensors in the order {@link TunableBert} reads them: query, key, value (weight, bias each), the attention's
     * output (weight, bias), its layer norm (gain, bias), the intermediate and output dense layers (weight, bias each)
     * and the last layer norm. A dense weight is named by its {@code MatMul} node, the others by their initializer.
     */
    private static final List<LayerTensor> LAYER_TENSORS = List.of(
            new LayerTensor("/encoder/layer.%d/attention/self/query/MatMul_quant", true),
            new LayerTensor("encoder.layer.%d.attention.self.query.bias", false),
            new LayerTensor("/encoder/layer.%d/attention/self/key/MatMul_quant", true),
            new LayerTensor("encoder.layer.%d.attention.self.key.bias", false),
            new LayerTensor("/encoder/layer.%d/attention/self/value/MatMul_quant", true),
            new LayerTensor("encoder.layer.%d.attention.self.value.bias", false),
            new LayerTensor("/encoder/layer.%d/attention/output/dense/MatMul_quant", true),
            new LayerTensor("encoder.layer.%d.attention.output.dense.bias", false),
            new LayerTensor("encoder.layer.%d.attention.output.LayerNorm.weight", false),
            new LayerTensor("encoder.layer.%d.attention.output.LayerNorm.bias", false),
            new LayerTensor("/encoder/layer.%d/intermediate/dense/MatMul_quant", true),
            new LayerTensor("encoder.layer.%d.intermediate.dense.bias", false),
            new LayerTensor("/encoder/layer.%d/output/dense/MatMul_quant", true),
            new LayerTensor("encoder.layer.%d.output.dense.bias", false),
            new LayerTensor("encoder.layer.%d.output.LayerNorm.weight", false),
            new LayerTensor("encoder.layer.%d.output.LayerNorm.bias", false));

    /** Tensors per transformer layer. */
    static final int TENSORS_PER_LAYER = LAYER_TENSORS.size();

    /**
     * Quantized weights span [-64, 64], 7 bits, as in the shipped graphs (ONNX Runtime's reduced range): its x86 kernels
     * multiply uint8 activations by int8 weights and add the products in pairs into 16 bits, which full-range weights
     * would saturate.
     */
    private static final int WEIGHT_LIMIT = 64;

    /** How {@link #withLayers} quantizes, as a head's metadata records it. */
    static final String QUANTIZATION = "dense weights int8 in [-64, 64], symmetric, one scale per output column; embedding tables as shipped";

    /** A tensor as floats, with its shape. */
    record Tensor(long[] shape, float[] values) {}

    private final ModelProto model;
    private final Map<String, TensorProto> initializers = new HashMap<>();
    private final Map<String, String> denseWeights = new HashMap<>();
    private final int layers;

    private Int8BertWeights(ModelProto model) throws IOException {
        this.model = model;
        GraphProto graph = model.getGraph();
        graph.getInitializerList().forEach(tensor -> initializers.put(tensor.getName(), tensor));
        int count = 0;
        for (NodeProto node : graph.getNodeList()) {
            if (node.getOpType().equals("MatMulInteger")) {
                denseWeights.put(node.getName(), node.getInput(1));
                count += node.getName().endsWith("/attention/self/query/MatMul_quant") ? 1 : 0;
            }
        }
        this.layers = count;
        if (layers == 0) {
            throw new IOException("not an int8 BERT graph: no MatMulInteger query projection");
        }
    }

    /** The weights of {@code onnx}, a serialized int8 BERT graph. */
    static Int8BertWeights of(byte[] onnx) throws IOException {
        return new Int8BertWeights(ModelProto.parseFrom(onnx));
    }

    int layers() {
        return layers;
    }

    /** The embedding tables and their layer norm: words, positions, token types, norm gain, norm bias. */
    List<Tensor> embeddings() throws IOException {
        return List.of(dequantizedTable("embeddings.word_embeddings.weight"), dequantizedTable("embeddings.position_embeddings.weight"),
                dequantizedTable("embeddings.token_type_embeddings.weight"), floats(initializer("embeddings.LayerNorm.weight")),
                floats(initializer("embeddings.LayerNorm.bias")));
    }

    /** Transformer layer {@code layer}'s {@link #TENSORS_PER_LAYER} tensors, dense weights [in, out]. */
    List<Tensor> layer(int layer) throws IOException {
        List<Tensor> tensors = new ArrayList<>(TENSORS_PER_LAYER);
        for (LayerTensor tensor : LAYER_TENSORS) {
            String name = String.format(tensor.name(), layer);
            tensors.add(tensor.dense() ? dequantizedDense(name) : floats(initializer(name)));
        }
        return tensors;
    }

    /**
     * The graph with layers {@code first} on replaced by {@code tuned} ({@link #TENSORS_PER_LAYER} tensors a layer, as
     * {@link #layer} gives them): each dense weight quantized symmetrically per output column to [-64, 64], the rest
     * stored as floats.
     */
    byte[] withLayers(int first, List<List<Tensor>> tuned) throws IOException {
        if (first < 0 || first + tuned.size() != layers) {
            throw new IllegalArgumentException("layers " + first + " to " + (first + tuned.size() - 1) + " (expected: through "
                    + (layers - 1) + ")");
        }
        Map<String, TensorProto> replaced = new HashMap<>();
        for (int i = 0; i < tuned.size(); i++) {
            for (int t = 0; t < TENSORS_PER_LAYER; t++) {
                LayerTensor tensor = LAYER_TENSORS.get(t);
                String name = String.format(tensor.name(), first + i);
                Tensor values = tuned.get(i).get(t);
                if (tensor.dense()) {
                    quantizeDense(denseWeights.get(name), values, replaced);
                } else {
                    replaced.put(name, withFloats(initializer(name), values.values()));
                }
            }
        }
        GraphProto.Builder graph = model.getGraph().toBuilder();
        for (int i = 0; i < graph.getInitializerCount(); i++) {
            TensorProto replacement = replaced.get(graph.getInitializer(i).getName());
            if (replacement != null) {
                graph.setInitializer(i, replacement);
            }
        }
        return model.toBuilder().setGraph(graph).build().toByteArray();
    }

    private void quantizeDense(String quantizedName, Tensor weight, Map<String, TensorProto> into) throws IOException {
        TensorProto quantized = initializer(quantizedName);
        TensorProto scale = initializer(scaleName(quantizedName));
        int rows = (int) weight.shape()[0];
        int columns = (int) weight.shape()[1];
        float[] scales = new float[columns];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < columns; c++) {
                scales[c] = Math.max(scales[c], Math.abs(weight.values()[r * columns + c]));
            }
        }
        for (int c = 0; c < columns; c++) {
            // A column of zeros keeps a scale of 1: its values quantize to 0 either way, and a zero scale would divide by zero.
            scales[c] = scales[c] > 0 ? scales[c] / WEIGHT_LIMIT : 1;
        }
        byte[] values = new byte[rows * columns];
        for (int i = 0; i < values.length; i++) {
            long q = Math.round(weight.values()[i] / scales[i % columns]);
            values[i] = (byte) Math.max(-WEIGHT_LIMIT, Math.min(WEIGHT_LIMIT, q));
        }
        into.put(quantizedName, quantized.toBuilder().clearInt32Data().setRawData(ByteString.copyFrom(values)).build());
        into.put(scale.getName(), withFloats(scale, scales));
    }

    /** A dense layer's weight, dequantized: int8 values times their column's scale (zero points are 0). */
    private Tensor dequantizedDense(String node) throws IOException {
        String quantizedName = denseWeights.get(node);
        if (quantizedName == null) {
            throw new IOException("not an int8 BERT graph: no MatMulInteger " + node);
        }
        TensorProto quantized = initializer(quantizedName);
        float[] scales = floats(initializer(scaleName(quantizedName))).values();
        byte[] values = quantized.getRawData().toByteArray();
        int columns = (int) quantized.getDims(1);
        if (scales.length != columns || values.length != quantized.getDims(0) * columns) {
            throw new IOException(quantizedName + ": " + values.length + " values and " + scales.length + " scales for "
                    + quantized.getDimsList() + " (expected: one scale a column)");
        }
        float[] weight = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            weight[i] = values[i] * scales[i % columns];
        }
        return new Tensor(new long[] {quantized.getDims(0), columns}, weight);
    }

    /** An embedding table, dequantized: (uint8 value − zero point) × scale. */
    private Tensor dequantizedTable(String name) throws IOException {
        TensorProto quantized = initializer(name + "_quantized");
        float scale = floats(initializer(name + "_scale")).values()[0];
        TensorProto zeroPointTensor = initializer(name + "_zero_point");
        int zeroPoint = zeroPointTensor.getInt32DataCount() > 0 ? zeroPointTensor.getInt32Data(0)
                : Byte.toUnsignedInt(zeroPointTensor.getRawData().byteAt(0));
        byte[] values = quantized.getRawData().toByteArray();
        float[] table = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            table[i] = (Byte.toUnsignedInt(values[i]) - zeroPoint) * scale;
        }
        return new Tensor(quantized.getDimsList().stream().mapToLong(Long::longValue).toArray(), table);
    }

    private static String scaleName(String quantizedName) {
        return quantizedName.substring(0, quantizedName.length() - "_quantized".length()) + "_scale";
    }

    private TensorProto initializer(String name) throws IOException {
        TensorProto tensor = initializers.get(name);
        if (tensor == null) {
            throw new IOException("not an int8 BERT graph: no initializer " + name);
        }
        return tensor;
    }

    /** A float initializer's values, whether kept as raw little-endian bytes or as {@code float_data}. */
    private static Tensor floats(TensorProto tensor) {
        long[] shape = tensor.getDimsList().stream().mapToLong(Long::longValue).toArray();
        if (tensor.getFloatDataCount() > 0) {
            float[] values = new float[tensor.getFloatDataCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = tensor.getFloatData(i);
            }
            return new Tensor(shape, values);
        }
        FloatBuffer buffer = tensor.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] values = new float[buffer.remaining()];
        buffer.get(values);
        return new Tensor(shape, values);
    }

    private static TensorProto withFloats(TensorProto tensor, float[] values) {
        if (values.length != floats(tensor).values().length) {
            throw new IllegalArgumentException(tensor.getName() + ": " + values.length + " values (expected: "
                    + floats(tensor).values().length + ")");
        }
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        return tensor.toBuilder().clearFloatData().setRawData(ByteString.copyFrom(bytes.array())).build();
    }
}
