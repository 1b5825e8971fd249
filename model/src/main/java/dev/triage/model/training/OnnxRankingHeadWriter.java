package dev.triage.model.training;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.AttributeProto.AttributeType;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import com.google.protobuf.ByteString;
import dev.triage.model.ranker.RankerModel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes a {@link RankingHead} as an ONNX graph of standard operators — the features standardized
 * ({@code Sub}, {@code Div}) and put after the embedding ({@code Concat}), then {@code Gemm},
 * {@code Relu}, {@code Gemm}, plus the head's fixed prior where it has one ({@code Gather}, {@code Sub},
 * {@code Relu}, {@code Mul}, {@code Add}), and where trees are stacked on the head ({@link #write(RankingHead,
 * FeatureScaling, byte[])}), their {@code TreeEnsembleRegressor} — following {@link RankerModel}'s contract: inputs {@code embedding}
 * [N, D] and {@code features} [N, F], output {@code score} [N, 1]. The weights are stored as
 * float32, as {@link RankingHead#roundedToFloat} has them.
 */
final class OnnxRankingHeadWriter {

    private static final int DEFAULT_OPSET = 17;
    private static final int IR_VERSION = 8;

    /**
     * How much of the head's score is added to the stacked trees' sum. Trees score in steps, and
     * prompts whose scores tie are served in arrival order, so the head orders what the trees tie. A
     * head's scores span a few units, so this moves the trees' sum by a few thousandths: small against
     * most of its steps, and, rising with the head's score as the trees do, it never turns the order
     * of two prompts against both.
     */
    static final double TIE_BREAK = 1e-3;

    private OnnxRankingHeadWriter() {}

    static byte[] write(RankingHead head, FeatureScaling scaling) {
        return write(head, scaling, null);
    }

    /**
     * The head followed by trees fitted on its score: the head's score (output {@value RankerModel#HEAD_SCORE})
     * is put after the raw features ({@code Concat}), and the trees' sum over them plus {@link #TIE_BREAK} times
     * the head's score is {@value RankerModel#SCORE}.
     *
     * @param stackedTrees XGBoost's JSON model of trees over the {@link dev.triage.features.RequestFeatures} and
     *     the head's score, in that order; null for the head alone
     */
    static byte[] write(RankingHead head, FeatureScaling scaling, byte[] stackedTrees) {
        String headScore = stackedTrees == null ? RankerModel.SCORE : RankerModel.HEAD_SCORE;
        int features = scaling.means().length;
        int dimensions = head.inputs - features;
        GraphProto.Builder graph = GraphProto.newBuilder()
                .setName("triage_ranking_head")
                .addInitializer(tensor("feature_means", scaling.means(), features))
                .addInitializer(tensor("feature_scales", scaling.scales(), features))
                .addNode(NodeProto.newBuilder().setOpType("Sub").setName("center").addInput(RankerModel.FEATURES)
                        .addInput("feature_means").addOutput("centered"))
                .addNode(NodeProto.newBuilder().setOpType("Div").setName("scale").addInput("centered")
                        .addInput("feature_scales").addOutput("scaled"))
                .addNode(NodeProto.newBuilder().setOpType("Concat").setName("concat").addInput(RankerModel.INPUT)
                        .addInput("scaled").addOutput("head_input")
                        .addAttribute(AttributeProto.newBuilder().setName("axis").setType(AttributeType.INT).setI(1)))
                .addInitializer(tensor("W1", head.firstWeights(), head.hidden, head.inputs))
                .addInitializer(tensor("b1", head.firstBiases(), head.hidden))
                .addInitializer(tensor("W2", head.secondWeights(), 1, head.hidden))
                .addInitializer(tensor("b2", new float[] {head.secondBias()}, 1))
                .addNode(gemm("head_input", "W1", "b1", "hidden_linear"))
                .addNode(NodeProto.newBuilder().setOpType("Relu").setName("relu").addInput("hidden_linear").addOutput("hidden"))
                .addInput(value(RankerModel.INPUT, dimensions))
                .addInput(value(RankerModel.FEATURES, features))
                .addOutput(value(RankerModel.SCORE, 1));
        if (head.priorWeight == 0) {
            graph.addNode(gemm("hidden", "W2", "b2", headScore));
        } else {
            graph.addNode(gemm("hidden", "W2", "b2", "perceptron_score"))
                    .addInitializer(TensorProto.newBuilder().setName("prior_input").setDataType(TensorProto.DataType.INT64.getNumber())
                            .addDims(1).addInt64Data(head.priorInput))
                    .addInitializer(tensor("prior_weight", new float[] {(float) head.priorWeight}, 1))
                    .addInitializer(tensor("prior_threshold", new float[] {(float) head.priorThreshold}, 1))
                    .addNode(NodeProto.newBuilder().setOpType("Gather").setName("prior_gather").addInput("head_input")
                            .addInput("prior_input").addOutput("prior_feature")
                            .addAttribute(AttributeProto.newBuilder().setName("axis").setType(AttributeType.INT).setI(1)))
                    .addNode(NodeProto.newBuilder().setOpType("Sub").setName("prior_sub").addInput("prior_feature")
                            .addInput("prior_threshold").addOutput("prior_excess"))
                    .addNode(NodeProto.newBuilder().setOpType("Relu").setName("prior_relu").addInput("prior_excess")
                            .addOutput("prior_hinge"))
                    .addNode(NodeProto.newBuilder().setOpType("Mul").setName("prior_mul").addInput("prior_hinge")
                            .addInput("prior_weight").addOutput("prior"))
                    .addNode(NodeProto.newBuilder().setOpType("Add").setName("prior_add").addInput("perceptron_score")
                            .addInput("prior").addOutput(headScore));
        }
        ModelProto.Builder model = ModelProto.newBuilder()
                .setIrVersion(IR_VERSION)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(DEFAULT_OPSET))
                .setProducerName("triage");
        if (stackedTrees != null) {
            graph.addNode(NodeProto.newBuilder().setOpType("Concat").setName("stack_concat").addInput(RankerModel.FEATURES)
                            .addInput(headScore).addOutput("stack_input")
                            .addAttribute(AttributeProto.newBuilder().setName("axis").setType(AttributeType.INT).setI(1)))
                    .addNode(OnnxTreeEnsembleWriter.regressor(stackedTrees, features + 1, "stacked_trees", "stack_input",
                            "trees_score"))
                    .addInitializer(tensor("tie_break", new float[] {(float) TIE_BREAK}, 1))
                    .addNode(NodeProto.newBuilder().setOpType("Mul").setName("tie_mul").addInput(headScore).addInput("tie_break")
                            .addOutput("tie"))
                    .addNode(NodeProto.newBuilder().setOpType("Add").setName("tie_add").addInput("trees_score").addInput("tie")
                            .addOutput(RankerModel.SCORE))
                    .addOutput(value(headScore, 1));
            model.addOpsetImport(OnnxTreeEnsembleWriter.mlOpset());
        }
        return model.setGraph(graph).build().toByteArray();
    }

    /** {@code output = input × weightsᵀ + bias}, weights stored [out][in] as the head keeps them. */
    private static NodeProto gemm(String input, String weights, String bias, String output) {
        return NodeProto.newBuilder()
                .setOpType("Gemm")
                .setName(output + "_gemm")
                .addInput(input)
                .addInput(weights)
                .addInput(bias)
                .addOutput(output)
                .addAttribute(AttributeProto.newBuilder().setName("transB").setType(AttributeType.INT).setI(1))
                .build();
    }

    private static TensorProto tensor(String name, float[] values, long... dims) {
        ByteBuffer raw = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        raw.asFloatBuffer().put(values);
        TensorProto.Builder tensor = TensorProto.newBuilder()
                .setName(name)
                .setDataType(TensorProto.DataType.FLOAT.getNumber())
                .setRawData(ByteString.copyFrom(raw.array()));
        for (long dim : dims) {
            tensor.addDims(dim);
        }
        return tensor.build();
    }

    private static ValueInfoProto value(String name, long columns) {
        TensorShapeProto shape = TensorShapeProto.newBuilder()
                .addDim(TensorShapeProto.Dimension.newBuilder().setDimParam("N"))
                .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(columns))
                .build();
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder().setTensorType(
                        TypeProto.Tensor.newBuilder().setElemType(TensorProto.DataType.FLOAT.getNumber()).setShape(shape)))
                .build();
    }
}
