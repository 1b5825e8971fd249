package dev.triage.proxy.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.proxy.testing.HeldWrites;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientResponseWriterTest {

    private final HeldWrites socket = new HeldWrites();
    private final EmbeddedChannel client = new EmbeddedChannel(socket);
    private final List<String> events = new ArrayList<>();
    private final ClientResponseWriter writer = new ClientResponseWriter(client, client::write, () -> events.add("read more"),
            () -> events.add("relayed"));

    private static DefaultHttpContent chunk(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    @Test
    void theBackendIsReadAgainOnlyOnceTheClientTookTheLastWrite() {
        writer.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        assertTrue(writer.headWritten());
        assertEquals(List.of(), events, "nothing read while the client has not taken the head");
        socket.pending.get(0).setSuccess();
        assertEquals(List.of("read more"), events);
        writer.write(chunk("data: 1\n\n"));
        socket.pending.get(1).setSuccess();
        assertEquals(List.of("read more", "read more"), events);
        assertFalse(client.finishAndReleaseAll());
    }

    @Test
    void onceTheBackendIsDoneTheLastMessageReportsRelayedAndNothingReadsIt() {
        writer.write(chunk("data: 1\n\n"));
        writer.write(new DefaultLastHttpContent());
        writer.stop();
        socket.pending.get(0).setSuccess();
        socket.pending.get(1).setSuccess();
        assertEquals(List.of("relayed"), events);
        assertFalse(client.finishAndReleaseAll());
    }

    @Test
    void aFailedWriteOrAStoppedCallReadsNoMore() {
        writer.write(chunk("a"));
        writer.write(chunk("b"));
        socket.pending.get(0).setFailure(new IllegalStateException("client gone"));
        writer.stop();
        socket.pending.get(1).setSuccess();
        assertEquals(List.of(), events);
        assertFalse(writer.headWritten());
        assertFalse(client.finishAndReleaseAll());
    }

    @Test
    void theMessagesOfOneBackendReadGoInOneFlushAndTheLastAtOnce() {
        writer.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        writer.write(chunk("data: 1\n\n"));
        assertEquals(List.of(), socket.flushed, "flushed before the backend read ended");
        writer.flush();
        writer.write(chunk("data: 2\n\n"));
        writer.write(new DefaultLastHttpContent());
        assertEquals(List.of(2, 2), socket.flushed);
        assertFalse(client.finishAndReleaseAll());
    }
}
