package dev.triage.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Prompt extraction, the output cap and the request features on whatever JSON a coverage-guided
 * fuzzer writes: nothing throws, every feature is a finite number of at least 0, and each API's bound
 * is the largest whole limit of its fields (none when one of them says no limit), computed here on
 * exact numbers.
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
        assertEquals(expectedBound(json.path("max_completion_tokens"), json.path("max_tokens"), json.path("n_predict")),
                ChatBody.maxOutputTokens(json, ChatBody.Api.OPENAI));
        assertEquals(expectedBound(json.path("max_output_tokens")), ChatBody.maxOutputTokens(json, ChatBody.Api.RESPONSES));
        assertEquals(expectedBound(json.path("options").path("num_predict")), ChatBody.maxOutputTokens(json, ChatBody.Api.OLLAMA));
        float[] features = RequestFeatures.of(prompt);
        for (int i = 0; i < features.length; i++) {
            assertTrue(Float.isFinite(features[i]) && features[i] >= 0, RequestFeatures.NAMES.get(i) + " = " + features[i]);
        }
    }

    /** The largest whole number the fields hold, exactly; none when one of them is 0 or less. */
    private static OptionalInt expectedBound(JsonNode... fields) {
        List<BigInteger> limits = Stream.of(fields)
                .filter(JsonNode::isNumber)
                .map(ChatBodyFuzzTest::exactly)
                .filter(value -> value.signum() == 0 || value.stripTrailingZeros().scale() <= 0)
                .map(BigDecimal::toBigIntegerExact)
                .toList();
        if (limits.isEmpty() || limits.stream().anyMatch(limit -> limit.signum() <= 0)) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(limits.stream().max(Comparator.naturalOrder()).orElseThrow().min(INT_MAX).intValueExact());
    }

    /** A number's exact value; a decimal too large for a double (1e400) as one past every int, with its sign. */
    private static BigDecimal exactly(JsonNode number) {
        if (number.isFloatingPointNumber() && Double.isInfinite(number.asDouble())) {
            return BigDecimal.valueOf(number.asDouble() > 0 ? 1 : -1).multiply(new BigDecimal(INT_MAX).add(BigDecimal.ONE));
        }
        return number.decimalValue();
    }
}
