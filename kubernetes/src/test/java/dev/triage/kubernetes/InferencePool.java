package dev.triage.kubernetes;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;

/**
 * The spec of the Gateway API Inference Extension's {@code InferencePool}
 * ({@code inference.networking.k8s.io/v1}), for which Kubernetes' model classes have no type: the
 * fields of its published schema, read strictly so that an unknown one fails.
 */
record InferencePool(Selector selector, List<Port> targetPorts, EndpointPickerRef endpointPickerRef) {

    static final String API_VERSION = "inference.networking.k8s.io/v1";

    record Selector(Map<String, String> matchLabels) {}

    record Port(int number) {}

    record EndpointPickerRef(String group, String kind, String name, Port port, String failureMode) {}

    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    /** The spec of a manifest's InferencePool document. */
    static InferencePool of(JsonNode document) {
        try {
            return STRICT.treeToValue(document.get("spec"), InferencePool.class);
        } catch (Exception e) {
            throw new AssertionError("InferencePool " + document.path("metadata").path("name").asText() + ": " + e.getMessage(), e);
        }
    }
}
