package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.triage.features.ChatBodySeeds;
import dev.triage.model.Estimate;
import dev.triage.model.classifier.ClassifierEstimator;
import dev.triage.proxy.api.TriageError;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chat sizing path on whatever body a coverage-guided fuzzer writes, with the shipped classifier:
 * every body is either sized, with a finite estimate of at least 0, or refused with a 400. Anything
 * else would reach the client as a 500. Deeply nested, huge and oddly typed values are in the
 * committed corpus.
 */
class ChatSizerFuzzTest {

    private static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();
    private static final ChatSizer SIZER = new ChatSizer(ChatEstimation.ready(ClassifierEstimator.loadDefault(), null,
            REGISTRY::timer, REGISTRY::counter));
    private static final HttpRequest HEAD = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions");

    @MethodSource("dev.triage.features.ChatBodySeeds#bodies")
    @DictionaryFile(resourcePath = ChatBodySeeds.DICTIONARY)
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
