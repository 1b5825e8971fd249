package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Comparator;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Prompt extraction, the output cap and the request features on whatever JSON a coverage-guided
 * fuzzer writes: nothing throws, every feature is a finite number of at least 0, and the cap is the
 * smallest positive limit the body sets, computed here on exact integers.
 */
class ChatBodyFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final BigInteger INT_MAX = BigInteger.valueOf(Integer.MAX_VALUE);

    @MethodSource("dev.triage.features.ChatBodySeeds#bodies")
    @DictionaryFile(resourcePath = ChatBodySeeds.DICTIONARY)
    @FuzzTest
    void anyJsonGivesAPromptACapAndFiniteFeatures(byte[] body) {
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (IOException notJson) {
            return; // malformed, or bytes that no Unicode encoding decodes: the proxy answers 400 before reading it
        }
        Prompt prompt = ChatBody.prompt(json);
        assertEquals(expectedCap(json.path("max_completion_tokens"), json.path("max_tokens"), json.path("n_predict")),
                ChatBody.maxOutputTokens(json, false));
        assertEquals(expectedCap(json.path("options").path("num_predict")), ChatBody.maxOutputTokens(json, true));
        float[] features = RequestFeatures.of(prompt);
        for (int i = 0; i < features.length; i++) {
            assertTrue(Float.isFinite(features[i]) && features[i] >= 0, RequestFeatures.NAMES.get(i) + " = " + features[i]);
        }
    }

    private static OptionalInt expectedCap(JsonNode... fields) {
        return Stream.of(fields)
                .filter(JsonNode::isIntegralNumber)
                .map(JsonNode::bigIntegerValue)
                .filter(limit -> limit.signum() > 0)
                .min(Comparator.naturalOrder())
                .map(limit -> OptionalInt.of(limit.min(INT_MAX).intValueExact()))
                .orElse(OptionalInt.empty());
    }
}
