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

    private final ForwardingLedger ledger = new ForwardingLedger(new Examples(2));

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

        assertEquals(new ForwardingLedger.Tally(2, 1, 1, 1), ledger.tally());
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
