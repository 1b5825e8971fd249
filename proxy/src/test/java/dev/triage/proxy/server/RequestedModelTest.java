package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestedModelTest {

    private static Optional<String> model(String body) {
        ByteBuf bytes = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        try {
            Optional<String> model = RequestedModel.of(bytes);
            assertEquals(0, bytes.readerIndex(), "the body is left as it was");
            return model;
        } finally {
            bytes.release();
        }
    }

    @Test
    void readsTheTopLevelModelWhereverItIs() {
        assertEquals(Optional.of("llama3"), model("{\"model\":\"llama3\",\"messages\":[]}"));
        assertEquals(Optional.of("qwen"), model("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\",\"model\":\"nested\"}],"
                + "\"options\":{\"model\":\"nested\"},\"model\":\"qwen\"}"));
    }

    /** Jackson, Python and Go all keep the last of two fields of one name: so do the backends. */
    @Test
    void ofTwoModelFieldsTheLastCounts() {
        assertEquals(Optional.of("big"), model("{\"model\":\"small\",\"messages\":[],\"model\":\"big\"}"));
    }

    @Test
    void aBodyWithoutAModelStringHasNone() {
        assertEquals(Optional.empty(), model("{\"messages\":[]}"));
        assertEquals(Optional.empty(), model("{\"model\":7}"));
        assertEquals(Optional.empty(), model("{\"model\":\"\"}"), "an empty name names no model");
        assertEquals(Optional.empty(), model("[\"model\",\"llama3\"]"));
        assertEquals(Optional.empty(), model("{\"model\":"));
        assertEquals(Optional.empty(), model("not json"));
        assertEquals(Optional.empty(), model(""));
    }
}
