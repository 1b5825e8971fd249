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
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import dev.triage.model.classifier.OnnxLengthClassifier;
import dev.triage.model.lexical.LexicalEstimator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes an XGBoost booster as an ONNX graph of one {@code ai.onnx.ml} tree-ensemble operator, the
 * form ONNX Runtime serves: a multi-class booster as a {@code TreeEnsembleClassifier}
 * ({@link #write}), a regression or ranking booster as a {@code TreeEnsembleRegressor}
 * ({@link #writeRegressor}). No Java library converts XGBoost to
 * ONNX, so this reads the booster's JSON model ({@code booster.toByteArray("json")}) directly.
 *
 * <p>The mapping: XGBoost goes left when {@code x < split_condition} and sends a missing value
 * (NaN) left when {@code default_left}; ONNX's {@code BRANCH_LT} takes the true branch when
 * {@code x < value}, so the true branch is the left child and {@code missing_value_tracks_true} is
 * {@code default_left}. Tree {@code t} adds to the margin of class {@code tree_info[t]}; a leaf's
 * weight is its {@code split_conditions} entry; every class starts from {@code base_score}; a
 * {@code SOFTMAX} post-transform turns margins into XGBoost's {@code multi:softprob} probabilities.
 * The classifier graph follows {@link OnnxLengthClassifier}'s contract (input {@code features} [N, F],
 * outputs {@code label} [N] and {@code probabilities} [N, classes]). A regressor sums every tree's leaf
 * onto {@code base_score} with no post-transform, XGBoost's margin, following
 * {@link LexicalEstimator}'s contract: input {@code features} [N, F], output {@code score} [N, 1].
 */
public final class OnnxTreeEnsembleWriter {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ML_DOMAIN = "ai.onnx.ml";
    private static final int ML_OPSET = 3;
    private static final int DEFAULT_OPSET = 17;
    private static final int IR_VERSION = 8;

    /** The objectives whose prediction is the raw margin, which a regressor reproduces. */
    private static final List<String> MARGIN_OBJECTIVES = List.of("reg:squarederror", "rank:pairwise", "rank:ndcg", "rank:map");

    private OnnxTreeEnsembleWriter() {}

    /**
     * The ONNX model of a booster.
     *
     * @param boosterJson the booster as XGBoost's JSON model
     * @param featureCount columns of the input
     * @param classes classes of the {@code multi:softprob} objective
     * @throws IllegalArgumentException when the booster is not a plain numeric multi:softprob tree ensemble
     */
    public static byte[] write(byte[] boosterJson, int featureCount, int classes) {
        JsonNode learner = learner(boosterJson);
        String objective = learner.path("objective").path("name").asText();
        int numClass = learner.path("learner_model_param").path("num_class").asInt(-1);
        if (!"multi:softprob".equals(objective) || numClass != classes) {
            throw new IllegalArgumentException("booster: objective " + objective + " with " + numClass
                    + " classes (expected: multi:softprob with " + classes + ")");
        }
        Ensemble ensemble = ensemble(learner, featureCount);
        NodeProto.Builder node = NodeProto.newBuilder()
                .setOpType("TreeEnsembleClassifier")
                .setDomain(ML_DOMAIN)
                .setName("length_classifier")
                .addInput(OnnxLengthClassifier.INPUT)
                .addOutput(OnnxLengthClassifier.LABEL)
                .addOutput(OnnxLengthClassifier.PROBABILITIES);
        List<Long> labels = new ArrayList<>();
        List<Float> baseValues = new ArrayList<>();
        for (int c = 0; c < classes; c++) {
            labels.add((long) c);
            baseValues.add(baseScore(learner));
        }
        node.addAttribute(ints("classlabels_int64s", labels))
                .addAttribute(floats("base_values", baseValues))
                .addAttribute(string("post_transform", "SOFTMAX"));
        ensemble.addTo(node, "class");
        GraphProto graph = GraphProto.newBuilder()
                .setName("triage_length_classifier")
                .addNode(node)
                .addInput(tensor(OnnxLengthClassifier.INPUT, TensorProto.DataType.FLOAT, featureCount))
                .addOutput(tensor(OnnxLengthClassifier.LABEL, TensorProto.DataType.INT64))
                .addOutput(tensor(OnnxLengthClassifier.PROBABILITIES, TensorProto.DataType.FLOAT, classes))
                .build();
        return model(graph);
    }

    /**
     * The ONNX model of a booster whose prediction is its margin: squared error on any label, or a
     * learning-to-rank objective.
     *
     * @param boosterJson the booster as XGBoost's JSON model
     * @param featureCount columns of the input
     * @throws IllegalArgumentException when the booster is not a plain numeric tree ensemble of one
     *     of {@link #MARGIN_OBJECTIVES}
     */
    public static byte[] writeRegressor(byte[] boosterJson, int featureCount) {
        GraphProto graph = GraphProto.newBuilder()
                .setName("triage_length_score")
                .addNode(regressor(boosterJson, featureCount, "length_score", LexicalEstimator.INPUT, LexicalEstimator.SCORE))
                .addInput(tensor(LexicalEstimator.INPUT, TensorProto.DataType.FLOAT, featureCount))
                .addOutput(tensor(LexicalEstimator.SCORE, TensorProto.DataType.FLOAT, 1))
                .build();
        return model(graph);
    }

    /**
     * The {@code TreeEnsembleRegressor} node {@code name} of a booster whose prediction is its margin,
     * reading {@code input} [N, featureCount] and writing {@code output} [N, 1]; a graph holding it
     * must import {@link #mlOpset()}.
     *
     * @throws IllegalArgumentException as {@link #writeRegressor}
     */
    static NodeProto regressor(byte[] boosterJson, int featureCount, String name, String input, String output) {
        JsonNode learner = learner(boosterJson);
        String objective = learner.path("objective").path("name").asText();
        if (!MARGIN_OBJECTIVES.contains(objective)) {
            throw new IllegalArgumentException("booster: objective " + objective + " (expected: one of " + MARGIN_OBJECTIVES + ")");
        }
        Ensemble ensemble = ensemble(learner, featureCount);
        NodeProto.Builder node = NodeProto.newBuilder()
                .setOpType("TreeEnsembleRegressor")
                .setDomain(ML_DOMAIN)
                .setName(name)
                .addInput(input)
                .addOutput(output)
                .addAttribute(AttributeProto.newBuilder().setName("n_targets").setType(AttributeType.INT).setI(1))
                .addAttribute(floats("base_values", List.of(baseScore(learner))))
                .addAttribute(string("aggregate_function", "SUM"))
                .addAttribute(string("post_transform", "NONE"));
        ensemble.addTo(node, "target");
        return node.build();
    }

    /** The operator set of the {@code ai.onnx.ml} tree ensembles. */
    static OperatorSetIdProto mlOpset() {
        return OperatorSetIdProto.newBuilder().setDomain(ML_DOMAIN).setVersion(ML_OPSET).build();
    }

    private static JsonNode learner(byte[] boosterJson) {
        try {
            return JSON.readTree(boosterJson).path("learner");
        } catch (IOException e) {
            throw new IllegalArgumentException("booster: not an XGBoost JSON model: " + e.getMessage(), e);
        }
    }

    /** XGBoost 3.0 writes a scalar; later versions a list with one value per target. */
    private static float baseScore(JsonNode learner) {
        String text = learner.path("learner_model_param").path("base_score").asText().replace("[", "").replace("]", "");
        return Float.parseFloat(text);
    }

    private static Ensemble ensemble(JsonNode learner, int featureCount) {
        JsonNode model = learner.path("gradient_booster").path("model");
        if (model.path("gbtree_model_param").path("num_parallel_tree").asInt(1) != 1) {
            throw new IllegalArgumentException("booster: num_parallel_tree > 1 (expected: 1; random forests are not supported)");
        }
        Ensemble ensemble = new Ensemble();
        JsonNode treeInfo = model.path("tree_info");
        JsonNode trees = model.path("trees");
        for (int t = 0; t < trees.size(); t++) {
            ensemble.addTree(t, treeInfo.get(t).asInt(), trees.get(t), featureCount);
        }
        return ensemble;
    }

    private static byte[] model(GraphProto graph) {
        return ModelProto.newBuilder()
                .setIrVersion(IR_VERSION)
                .addOpsetImport(mlOpset())
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(DEFAULT_OPSET))
                .setProducerName("triage")
                .setGraph(graph)
                .build()
                .toByteArray();
    }

    /** The node and leaf attribute lists of the ensemble, filled tree by tree. */
    private static final class Ensemble {
        final List<Long> nodeTrees = new ArrayList<>();
        final List<Long> nodeIds = new ArrayList<>();
        final List<Long> nodeFeatures = new ArrayList<>();
        final List<Float> nodeValues = new ArrayList<>();
        final List<String> nodeModes = new ArrayList<>();
        final List<Long> trueNodes = new ArrayList<>();
        final List<Long> falseNodes = new ArrayList<>();
        final List<Long> missingTracksTrue = new ArrayList<>();
        final List<Long> leafTrees = new ArrayList<>();
        final List<Long> leafIds = new ArrayList<>();
        final List<Long> leafClasses = new ArrayList<>();
        final List<Float> leafWeights = new ArrayList<>();

        /** The node attributes, and the leaf attributes under {@code prefix} ({@code class} or {@code target}). */
        void addTo(NodeProto.Builder node, String prefix) {
            node.addAttribute(ints("nodes_treeids", nodeTrees))
                    .addAttribute(ints("nodes_nodeids", nodeIds))
                    .addAttribute(ints("nodes_featureids", nodeFeatures))
                    .addAttribute(floats("nodes_values", nodeValues))
                    .addAttribute(strings("nodes_modes", nodeModes))
                    .addAttribute(ints("nodes_truenodeids", trueNodes))
                    .addAttribute(ints("nodes_falsenodeids", falseNodes))
                    .addAttribute(ints("nodes_missing_value_tracks_true", missingTracksTrue))
                    .addAttribute(ints(prefix + "_treeids", leafTrees))
                    .addAttribute(ints(prefix + "_nodeids", leafIds))
                    .addAttribute(ints(prefix + "_ids", leafClasses))
                    .addAttribute(floats(prefix + "_weights", leafWeights));
        }

        void addTree(int tree, int classId, JsonNode json, int featureCount) {
            JsonNode left = json.path("left_children");
            JsonNode right = json.path("right_children");
            JsonNode features = json.path("split_indices");
            JsonNode conditions = json.path("split_conditions");
            JsonNode defaultLeft = json.path("default_left");
            JsonNode splitTypes = json.path("split_type");
            for (int n = 0; n < left.size(); n++) {
                nodeTrees.add((long) tree);
                nodeIds.add((long) n);
                float condition = (float) conditions.get(n).asDouble();
                if (left.get(n).asInt() == -1) {
                    nodeFeatures.add(0L);
                    nodeValues.add(0f);
                    nodeModes.add("LEAF");
                    trueNodes.add(0L);
                    falseNodes.add(0L);
                    missingTracksTrue.add(0L);
                    leafTrees.add((long) tree);
                    leafIds.add((long) n);
                    leafClasses.add((long) classId);
                    leafWeights.add(condition);
                } else {
                    int feature = features.get(n).asInt();
                    if (splitTypes.path(n).asInt(0) != 0 || feature < 0 || feature >= featureCount) {
                        throw new IllegalArgumentException("booster: tree " + tree + " node " + n + " splits on feature "
                                + feature + " of type " + splitTypes.path(n).asInt(0)
                                + " (expected: a numeric split on one of " + featureCount + " features)");
                    }
                    nodeFeatures.add((long) feature);
                    nodeValues.add(condition);
                    nodeModes.add("BRANCH_LT");
                    trueNodes.add(left.get(n).asLong());
                    falseNodes.add(right.get(n).asLong());
                    missingTracksTrue.add(defaultLeft.get(n).asInt() != 0 ? 1L : 0L);
                }
            }
        }
    }

    private static ValueInfoProto tensor(String name, TensorProto.DataType type, long... trailingDims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder()
                .addDim(TensorShapeProto.Dimension.newBuilder().setDimParam("N"));
        for (long dim : trailingDims) {
            shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(dim));
        }
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder().setTensorType(
                        TypeProto.Tensor.newBuilder().setElemType(type.getNumber()).setShape(shape)))
                .build();
    }

    private static AttributeProto ints(String name, List<Long> values) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeType.INTS).addAllInts(values).build();
    }

    private static AttributeProto floats(String name, List<Float> values) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeType.FLOATS).addAllFloats(values).build();
    }

    private static AttributeProto string(String name, String value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeType.STRING)
                .setS(ByteString.copyFrom(value, StandardCharsets.UTF_8)).build();
    }

    private static AttributeProto strings(String name, List<String> values) {
        AttributeProto.Builder attribute = AttributeProto.newBuilder().setName(name).setType(AttributeType.STRINGS);
        for (String value : values) {
            attribute.addStrings(ByteString.copyFrom(value, StandardCharsets.UTF_8));
        }
        return attribute.build();
    }
}
