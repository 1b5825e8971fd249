package dev.triage.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The ledger of what reached the backend: bodies byte for byte, at most once, and never a refused request. */
class ForwardingLedgerTest {

    private ForwardingLedger ledger = new ForwardingLedger(new Examples(2), false);

    @Test
    void countsBodiesCheckedAlteredDuplicatedAndLeaked() {
        ledger.expect("1.0", bytes("{\"prompt\":\"a\"}"));
        ledger.expect("2.0", bytes("{\"prompt\":\"b\"}"));
        ledger.forbid("3.0");

        arrive("1.0", "{\"prompt\":\"a\"}");
        arrive("2.0", "{\"prompt\":\"B\"}");
        arrive("1.0", "{\"prompt\":\"a\"}");
        arrive("3.0", "PRI * HTTP/2.0");
        arrive(null, "");

        assertEquals(new ForwardingLedger.Tally(2, 1, 1, 1, 0), ledger.tally());
    }

    @Test
    void whereTriagePausesStreamsAContinuationIsAResumeAndACopyIsStillForwardedTwice() {
        ledger = new ForwardingLedger(new Examples(2), true);
        String chat = "{\"stream\":true,\"max_tokens\":40,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        ledger.expect("1.0", bytes(chat));
        ledger.expect("2.0", bytes("{\"stream\":true,\"prompt\":\"once\",\"max_tokens\":9}"));

        arrive("1.0", chat);
        arrive("1.0", "{\"stream\":true,\"max_tokens\":25,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"assistant\",\"content\":\"Hello th\"}]}");
        arrive("1.0", "{\"stream\":true,\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"assistant\",\"content\":\"Hello there, I\"}]}");
        arrive("2.0", "{\"stream\":true,\"prompt\":\"once\",\"max_tokens\":9}");
        arrive("2.0", "{\"stream\":true,\"prompt\":\"once\",\"max_tokens\":9}");

        assertEquals(new ForwardingLedger.Tally(2, 0, 1, 0, 2), ledger.tally());
    }

    private void arrive(String mark, String body) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/completions",
                Unpooled.wrappedBuffer(bytes(body)));
        if (mark != null) {
            request.headers().set(ForwardingLedger.MARK_HEADER, mark);
        }
        try {
            ledger.received(request);
        } finally {
            request.release();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
