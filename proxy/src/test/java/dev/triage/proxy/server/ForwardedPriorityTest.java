package dev.triage.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The rank keeps the client's priority first and the expected length second; bodies it cannot rank pass unchanged. */
class ForwardedPriorityTest {

    @Test
    void theClientsPriorityDecidesBeforeTheExpectedLength() {
        assertTrue(ForwardedPriority.rank(0, 5_000) < ForwardedPriority.rank(1, 0));
        assertTrue(ForwardedPriority.rank(-1, 1e12) < ForwardedPriority.rank(0, 0), "a length beyond the room is capped below the next priority");
        assertTrue(ForwardedPriority.rank(0, 10) < ForwardedPriority.rank(0, 11));
        assertEquals(Long.MIN_VALUE, ForwardedPriority.rank(Integer.MIN_VALUE, 0));
        assertTrue(ForwardedPriority.rank(Integer.MAX_VALUE, 1e12) > 0, "no overflow at the top");
    }

    @Test
    void writesTheRankAndReleasesTheOldBody() {
        ByteBuf body = utf8("{\"model\":\"m\",\"priority\":-3,\"messages\":[]}");
        ByteBuf sent = ForwardedPriority.write(body, OptionalDouble.of(42.4));
        assertEquals(0, body.refCnt());
        assertEquals("{\"model\":\"m\",\"priority\":" + (-3L * (1L << 32) + 42) + ",\"messages\":[]}", sent.toString(StandardCharsets.UTF_8));
        sent.release();
    }

    @Test
    void leavesBodiesItCannotRankAsTheyAre() {
        for (String text : new String[] {"not json", "[1,2]", "{\"priority\":\"high\"}", "{\"priority\":1.5}"}) {
            ByteBuf body = utf8(text);
            assertSame(body, ForwardedPriority.write(body, OptionalDouble.of(7)));
            assertEquals(text, body.toString(StandardCharsets.UTF_8));
            body.release();
        }
    }

    private static ByteBuf utf8(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
    }
}
