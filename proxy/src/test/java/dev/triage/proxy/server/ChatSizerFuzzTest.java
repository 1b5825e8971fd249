package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierEstimator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chat sizing path on whatever body a coverage-guided fuzzer writes, with the shipped classifier:
 * every body is either sized, with a finite estimate of at least 0, or refused with a 400. Anything
 * else would reach the client as a 500. Deeply nested, huge and oddly typed values are in the
 * committed corpus.
 */
class ChatSizerFuzzTest {

    private static final ChatSizer SIZER = new ChatSizer(ClassifierEstimator.loadDefault(), null, new SimpleMeterRegistry()::timer);
    private static final HttpRequest HEAD = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions");

    static Stream<byte[]> bodies() {
        return Stream.of(
                "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be terse.\"},"
                        + "{\"role\":\"user\",\"content\":\"Write an essay on tides, in three paragraphs.\"}],\"max_tokens\":300}",
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is this?\"}]}],"
                        + "\"max_completion_tokens\":20,\"priority\":-1}",
                "{\"prompt\":[\"def fib(n):\",\"    return\"],\"n_predict\":64}",
                "{\"model\":\"llama3\",\"prompt\":\"Why is the sky blue?\",\"options\":{\"num_predict\":128},\"priority\":3}")
                .map(body -> body.getBytes(StandardCharsets.UTF_8));
    }

    @MethodSource("bodies")
    @DictionaryEntries({"\"messages\"", "\"role\"", "\"user\"", "\"content\"", "\"type\"", "\"text\"", "\"prompt\"",
            "\"max_tokens\"", "\"max_completion_tokens\"", "\"n_predict\"", "\"options\"", "\"num_predict\"", "\"priority\"",
            "2147483647", "9223372036854775807", "-9223372036854775808", "1e309", "0.5"})
    @FuzzTest
    void everyBodyIsSizedOrRefusedWithA400(byte[] body) {
        ByteBuf buffer = Unpooled.wrappedBuffer(body);
        try {
            Estimate estimate = SIZER.size(HEAD, buffer).join().estimate();
            assertTrue(estimate.expectedTokens() >= 0 && Double.isFinite(estimate.expectedTokens()), estimate.toString());
        } catch (RequestRejectedException refused) {
            assertEquals(TriageError.INVALID_REQUEST, refused.error(), refused.getMessage());
        } finally {
            buffer.release();
        }
    }
}
